"""The work tree's listing started early (repo/tree.py `EarlyListing`, #30): git runs while
the docs are parsed, with no thread; its answer is `list_tree`'s, however much git writes,
and what is never read is stopped and reaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.errors import GitError
from kenso_git.repo.moves import find_moves
from kenso_git.repo.tree import EarlyListing
from kenso_git.repo.tree import list_tree
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

TEXT = "A page with enough words that git's similarity index sees the same file.\n" * 5


def _children() -> list[int]:
    """The pids of this process's children (Linux), zombies included."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def test_an_early_listing_is_the_listing_even_past_what_a_pipe_holds(repo: Path) -> None:
    # ~1.6 MB of `ls-files` output: more than the enlarged pipe, so git waits to be read
    names = {
        f"docs/{'long-folder-name-' * 3}{i:05d}/{'a-long-file-name-' * 3}.md": "x\n"
        for i in range(12_000)
    }
    write(repo, {"tracked.md": "t\n", "build/out.bin": "b\n", ".gitignore": "build/\n"})
    commit_all(repo, "add")
    for rel in names:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
    ws = find_workspace(repo)
    early = EarlyListing(ws).result()
    plain = list_tree(ws)
    assert (early.files, early.whole) == (plain.files, plain.whole)
    assert len(early.files) == len(names) + 2 and early.whole == ["build"]


def test_an_early_listing_outside_git_walks_the_folder(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "a\n", "sub/b.md": "b\n"})
    ws = find_workspace(tmp_path)
    assert sorted(EarlyListing(ws, renames=True).result().files) == ["a.md", "sub/b.md"]


def test_a_listing_never_read_is_stopped_and_reaped(repo: Path) -> None:
    write(repo, {"a.md": "a\n"})
    commit_all(repo, "add")
    before = set(_children())
    early = EarlyListing(find_workspace(repo), renames=True)
    assert set(_children()) - before  # git was started
    early.discard()
    early.discard()  # idempotent
    assert set(_children()) - before == set()


def test_staged_renames_started_early_are_read_by_find_moves(repo: Path) -> None:
    write(repo, {"old.md": TEXT})
    commit_all(repo, "add")
    git(repo, "mv", "old.md", "new.md")
    ws = find_workspace(repo)
    early = EarlyListing(ws, renames=True)
    found = find_moves(ws, {"old.md"}, lambda p: (repo / p).exists(), staged=early.staged)
    early.discard()
    assert found.moved["old.md"].new == "new.md"
    assert set(_children()) == set()


def test_a_failing_early_git_is_the_git_error_list_tree_raises(repo: Path) -> None:
    ws = find_workspace(repo)
    early = EarlyListing(ws)
    (repo / ".git" / "index").write_bytes(b"not an index")
    broken = EarlyListing(ws)
    early.discard()
    with pytest.raises(GitError, match="ls-files"):
        broken.result()
    with pytest.raises(GitError, match="ls-files"):
        list_tree(ws)
