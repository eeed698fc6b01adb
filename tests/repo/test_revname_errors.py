"""repo/revname.py: a revision that names no commit is refused with git's own reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.repo.revname import resolve_revision
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write


def _refusal(root: Path, rev: str) -> UsageError:
    with pytest.raises(UsageError) as caught:
        resolve_revision(find_workspace(root), rev)
    return caught.value


@pytest.fixture
def on_main(repo: Path) -> Path:
    git(repo, "checkout", "-q", "-b", "main")
    write(repo, {"docs/a.md": "# A\n"})
    commit_all(repo, "base")
    return repo


@pytest.mark.parametrize("rev", ["@{upstream}", "@{u}", "main@{U}", "HEAD@{upstream}~1"])
def test_an_upstream_of_a_branch_with_none_says_no_upstream_is_configured(
    on_main: Path, rev: str
) -> None:
    err = _refusal(on_main, rev)

    assert err.message == f"unknown revision {rev!r}: no upstream configured for branch 'main'"
    assert err.hint is not None
    assert "--set-upstream-to" in err.hint
    assert "fetch" not in err.hint


def test_an_upstream_on_a_detached_head_says_it_is_detached(on_main: Path) -> None:
    git(on_main, "checkout", "-q", "--detach")

    err = _refusal(on_main, "@{u}")

    assert err.message == "unknown revision '@{u}': HEAD is detached, so it has no upstream"


def test_an_upstream_set_but_not_fetched_still_points_at_git_fetch(on_main: Path) -> None:
    git(on_main, "remote", "add", "origin", "file:///nowhere")
    git(on_main, "config", "branch.main.remote", "origin")
    git(on_main, "config", "branch.main.merge", "refs/heads/main")

    err = _refusal(on_main, "@{u}")

    assert "no upstream configured" not in err.message
    assert err.hint is not None
    assert "git fetch" in err.hint


def test_an_annotated_tag_of_a_tree_says_the_tag_points_at_a_tree(on_main: Path) -> None:
    git(on_main, "tag", "-a", "treetag", "-m", "tag of a tree", "HEAD^{tree}")

    err = _refusal(on_main, "treetag")

    assert err.message == "not a commit: 'treetag' names a tag of a tree"
    assert err.hint is not None
    assert "a tag of a commit" in err.hint


def test_a_tree_id_is_still_named_a_tree(on_main: Path) -> None:
    err = _refusal(on_main, "HEAD^{tree}")

    assert err.message == "not a commit: 'HEAD^{tree}' names a tree"
