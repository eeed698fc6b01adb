"""`kenso-git changed --since REV` (the work tree's side) and the `changed_docs` tool are
reads: they never write into `.git/`. Their `git diff REV` refreshed the stat data of git's
own index and wrote it back (even with `--no-optional-locks`), so a `git add` run meanwhile
failed on `index.lock` (t47a, defect 1). The diffs now run on a copy of the index, and
answer as git's own index would: stat-only changes are no change, `git add -N`, staged and
unstaged edits and a move without `git mv` are."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.statusindex import PREFIX
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write
from tests.serve.conftest import structured_call

TEXT = "Some text about the harbour, long enough for the index to keep it. " * 4
LONG_AGO_NS = 1_600_000_000 * 10**9  # a file mtime no index entry records


def _repo(root: Path, *, indexed: bool) -> Path:
    init_repo(root, {f"docs/{n}.md": doc(n.upper(), f"{n} {TEXT}") for n in "abcde"})
    write(root, {"docs/a.md": doc("A", f"a, edited. {TEXT}")})
    git(root, "commit", "-qam", "edit a")
    write(root, {"docs/b.md": doc("B", f"b, unstaged. {TEXT}")})
    write(root, {"docs/d.md": doc("D", f"d, staged. {TEXT}")})
    git(root, "add", "docs/d.md")
    write(root, {"docs/ita.md": doc("Ita", f"intent to add. {TEXT}")})
    git(root, "add", "-N", "docs/ita.md")
    os.rename(root / "docs/c.md", root / "docs/moved.md")  # no `git mv`: untracked + deleted
    if indexed:
        KnowledgeBase.open(root).ingest()
    git(root, "status")  # git's index now holds the stat data of every file
    for name in ("a", "b", "d", "e", "ita", "moved"):  # touched, not changed
        os.utime(root / "docs" / f"{name}.md", ns=(LONG_AGO_NS, LONG_AGO_NS))
    return root


def _git_dir_state(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and folder under `.git`: size, mtime and (files) a hash of the bytes."""
    state: dict[str, tuple[int, int, str]] = {}
    for folder, dirs, files in os.walk(root / ".git"):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if name in files else ""
            state[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns, digest)
    return state


EXPECTED = {
    ("docs/a.md", "modified", None, False),
    ("docs/b.md", "modified", None, True),
    ("docs/d.md", "modified", None, True),
    ("docs/ita.md", "added", None, True),
    ("docs/moved.md", "renamed", "docs/c.md", True),
}


def _answer(results: list[dict[str, object]]) -> set[tuple[object, ...]]:
    return {
        (r["path"], r["status"], r.get("old_path"), bool(r.get("uncommitted"))) for r in results
    }


@pytest.mark.parametrize("indexed", [True, False], ids=["with-index", "no-index"])
def test_changed_writes_nothing_into_git_dir_and_answers_as_git_index_would(
    tmp_path: Path, indexed: bool
) -> None:
    root = _repo(tmp_path / "repo", indexed=indexed)
    before = _git_dir_state(root)

    proc = run_cli(root, "changed", "--since", "HEAD~1", "--json")

    assert proc.returncode == 0, proc.stderr
    assert _git_dir_state(root) == before
    assert _answer(json.loads(proc.stdout)["results"]) == EXPECTED
    again = run_cli(root, "changed", "--since", "HEAD~1", "--json")  # the kept copy, refreshed
    assert _answer(json.loads(again.stdout)["results"]) == EXPECTED
    assert _git_dir_state(root) == before


@pytest.mark.anyio
async def test_the_changed_docs_tool_writes_nothing_into_git_dir(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo", indexed=True)
    before = _git_dir_state(root)

    failed, body = await structured_call(root, "changed_docs", {"since": "HEAD~1"})

    assert not failed, body
    assert _git_dir_state(root) == before
    assert _answer(body["results"]) == EXPECTED


def test_a_copy_git_cannot_read_is_made_again_and_the_answer_holds(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo", indexed=True)
    assert run_cli(root, "changed", "--since", "HEAD~1").returncode == 0
    copies = [
        p for p in (root / ".kenso").iterdir() if p.name.startswith(PREFIX) and "." not in p.name
    ]
    assert len(copies) == 1, copies
    copies[0].write_bytes(b"DIRC not an index")  # as a crash might leave it
    before = _git_dir_state(root)

    proc = run_cli(root, "changed", "--since", "HEAD~1", "--json")

    assert proc.returncode == 0, proc.stderr
    assert _answer(json.loads(proc.stdout)["results"]) == EXPECTED
    assert _git_dir_state(root) == before


def test_an_unborn_repository_without_git_index_pairs_a_move_too(tmp_path: Path) -> None:
    moved = doc("Z", "Nothing alike. " * 20)
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("A", TEXT), "docs/y.md": moved}, False)
    other = init_repo(tmp_path / "other", {"docs/z.md": moved})
    git(root, "fetch", "-q", str(other), "main:theirs")
    assert not (root / ".git" / "index").exists()
    before = _git_dir_state(root)

    proc = run_cli(root, "changed", "--since", "theirs", "--json")

    assert proc.returncode == 0, proc.stderr
    assert _git_dir_state(root) == before
    assert _answer(json.loads(proc.stdout)["results"]) == {
        ("docs/a.md", "added", None, True),
        ("docs/y.md", "renamed", "docs/z.md", True),
    }
