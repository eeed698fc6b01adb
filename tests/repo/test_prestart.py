"""The status `sync` and `search` start before anything is imported (#16) answers for the
work tree the full discovery finds, with the HEAD `index.freshness` reads, or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.index.freshness import head_commit
from kenso_git.repo import gitstatus
from kenso_git.repo import prestart
from kenso_git.repo.workspace import find_workspace
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"docs/a.md": doc("A"), "b.md": doc("B")})


def _start_in(folder: Path, monkeypatch: pytest.MonkeyPatch) -> prestart.Started | None:
    monkeypatch.chdir(folder)
    return prestart.start()


def _answer(started: prestart.Started) -> list[str]:
    return gitstatus.EarlyStatus.adopt(started).answer()


def test_its_status_is_the_one_the_full_way_asks(repo: Path) -> None:
    assert list(prestart.STATUS_ARGS) == gitstatus._status_args("normal", ())


def test_from_a_subfolder_it_looks_at_the_work_tree_and_answers_as_git_status_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "docs/a.md").write_text(doc("A", "Edited."))
    (repo / "docs/new.md").write_text(doc("New"))
    started = _start_in(repo / "docs", monkeypatch)
    assert started is not None
    assert started.root == str(find_workspace(repo / "docs").root)
    ws = find_workspace(repo)
    assert sorted(_answer(started)) == sorted(gitstatus.status_paths(ws, []) or [])
    assert sorted(gitstatus.status_paths(ws, []) or []) == ["docs/a.md", "docs/new.md"]


@pytest.mark.parametrize("form", ["loose", "packed", "detached", "unborn"])
def test_it_reads_head_as_the_index_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    if form == "packed":
        git(repo, "pack-refs", "--all")
        assert not (repo / ".git/refs/heads/main").exists()
    elif form == "detached":
        git(repo, "checkout", "-q", "--detach")
    elif form == "unborn":
        git(repo, "checkout", "-q", "--orphan", "fresh")
    started = _start_in(repo, monkeypatch)
    assert started is not None
    _answer(started)
    expected = head_commit(find_workspace(repo))
    assert started.head == expected
    assert (expected is None) == (form == "unborn")


def test_a_linked_worktree_or_a_folder_outside_git_is_left_to_the_full_way(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    assert (tmp_path / "linked/.git").is_file()
    assert _start_in(tmp_path / "linked", monkeypatch) is None
    outside = tmp_path / "plain"
    outside.mkdir()
    assert _start_in(outside, monkeypatch) is None
    assert _start_in(repo / ".git", monkeypatch) is None


def test_a_status_of_another_work_tree_is_dropped_and_reaped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = init_repo(tmp_path / "other", {"x.md": doc("X")})
    started = _start_in(other, monkeypatch)
    assert started is not None
    pid = started.pid
    assert gitstatus.adopt_status(find_workspace(repo), started) is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left behind
    again = _start_in(other, monkeypatch)
    assert again is not None
    adopted = gitstatus.adopt_status(find_workspace(other), again)
    assert adopted is not None and adopted.answer() == []
