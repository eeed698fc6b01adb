"""`kenso-git changed` pairs a doc moved without `git mv` (deleted, plus an untracked one)
by running its diffs again on a copy of the index where the untracked docs are entries.
Those entries were added by `git update-index --add --cacheinfo ...` in batches of 64 kB of
arguments, and every run wrote the whole index again: with many untracked docs the cost
was batches x index size. Every entry now goes in one `update-index --index-info` run fed
on stdin, with the answers git itself gives, and `.git/` is still never written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write
from tests.repo.test_changed_leaves_git_index import _git_dir_state

UNTRACKED = 3000  # ~270 kB of `--cacheinfo` arguments: five batches before
STATUS = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed"}


def _repo(root: Path) -> Path:
    moved = doc("Harbour", "Boats, tides and the harbour master's log. " * 8)
    init_repo(root, {"docs/a.md": doc("A", "a " * 50), "docs/old/harbour.md": moved})
    write(root, {"docs/a.md": doc("A", "a, edited " * 50)})
    os.renames(root / "docs/old/harbour.md", root / "docs/new/harbour.md")  # no `git mv`
    write(root, {"docs/ünï café.md": doc("Cafe", "Coffee notes. " * 10)})
    write(root, {'docs/"quoted" name.md': doc("Quoted", "Quotes in the name. " * 10)})
    write(
        root,
        {
            f"docs/untracked/note-number-{i:05d}.md": doc(f"Note {i}", f"note {i} " * 20)
            for i in range(UNTRACKED)
        },
    )
    return root


def _git_says(root: Path) -> set[tuple[str, str, str | None]]:
    """What git answers once every doc is added: (path, status, old path)."""
    git(root, "add", "-A", "--", "docs")
    fields = git(root, "diff", "--cached", "-M", "--name-status", "-z", "HEAD").split("\0")
    out: set[tuple[str, str, str | None]] = set()
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i][:1]
        if code == "R":
            out.add((fields[i + 2], STATUS[code], fields[i + 1]))
            i += 3
        else:
            out.add((fields[i + 1], STATUS[code], None))
            i += 2
    return out


def test_untracked_docs_become_entries_in_one_git_run_with_git_own_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path / "repo")
    trace = tmp_path / "trace.log"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    before = _git_dir_state(root)

    proc = run_cli(root, "changed", "--since", "HEAD", "--json")

    assert proc.returncode == 0, proc.stderr
    assert _git_dir_state(root) == before
    runs = [line for line in trace.read_text("utf-8").splitlines() if "git update-index" in line]
    assert len(runs) == 1, runs[:3]
    assert "--index-info" in runs[0]
    results = json.loads(proc.stdout)["results"]
    assert all(r["uncommitted"] for r in results)
    ours = {(r["path"], r["status"], r.get("old_path")) for r in results}
    monkeypatch.delenv("GIT_TRACE")
    theirs = _git_says(root)
    assert len(theirs) == UNTRACKED + 4
    assert ("docs/new/harbour.md", "renamed", "docs/old/harbour.md") in theirs
    assert ours == theirs
