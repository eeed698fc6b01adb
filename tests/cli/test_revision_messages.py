"""Errors about a revision say why it names nothing, and name the option typed: a repository
(or a branch) with no commit yet said `unknown revision 'HEAD'` with a `git fetch` hint,
`HEAD~20` in a shorter history the same; `search --since HEAD~2` named the search tool's
`modified_after` argument and did not point to `--ref` or `changed`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli as run
from tests.helpers import write

PAGE = "# Fresh\n\nA page about puffins and their burrows, long enough to be indexed.\n"


def _three_commits(root: Path) -> Path:
    init_repo(root, {"docs/f.md": PAGE})
    for i in (2, 3):
        write(root, {"docs/f.md": PAGE + f"\npuffin {i}\n"})
        git(root, "commit", "-qam", f"c{i}")
    assert run(root, "ingest", "--no-lint").returncode == 0
    return root


@pytest.mark.parametrize(
    "argv",
    [("changed", "--since", "HEAD"), ("search", "puffins", "--ref", "HEAD")],
    ids=["changed", "search-ref"],
)
def test_a_repository_with_no_commit_says_so(tmp_path: Path, argv: tuple[str, ...]) -> None:
    root = init_repo(tmp_path / "repo", {"docs/f.md": PAGE}, commit=False)
    assert run(root, "ingest", "--no-lint").returncode == 0

    proc = run(root, *argv)

    assert proc.returncode == 2
    assert "unknown revision 'HEAD': this repository has no commits yet" in proc.stderr
    assert "git commit" in proc.stderr
    assert "fetch" not in proc.stderr


def test_an_orphan_branch_with_no_commit_says_so(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/f.md": PAGE})
    git(root, "checkout", "-q", "--orphan", "fresh")

    proc = run(root, "changed", "--since", "HEAD~1")

    assert proc.returncode == 2
    assert "the current branch 'fresh' has no commits yet" in proc.stderr
    assert "fetch" not in proc.stderr


@pytest.mark.parametrize("rev", ["HEAD~20", "HEAD^^^", "main~1~2", "HEAD~3"])
def test_a_revision_past_the_first_commit_says_how_deep_history_is(
    tmp_path: Path, rev: str
) -> None:
    root = _three_commits(tmp_path / "repo")
    base = rev.split("~")[0].split("^")[0]

    for argv in (("changed", "--since", rev), ("search", "puffins", "--ref", rev)):
        proc = run(root, *argv)
        assert proc.returncode == 2
        assert (
            f"unknown revision '{rev}': the history of {base} is only 3 commits deep "
            f"({base}~2 is its first commit)"
        ) in proc.stderr
        assert "fetch" not in proc.stderr


def test_an_unknown_name_keeps_the_fetch_hint(tmp_path: Path) -> None:
    root = _three_commits(tmp_path / "repo")

    proc = run(root, "changed", "--since", "origin/main~20")

    assert proc.returncode == 2
    assert "no commit of this repository has that name" in proc.stderr
    assert "git fetch" in proc.stderr


def test_search_since_given_a_revision_names_since_and_where_a_revision_goes(
    tmp_path: Path,
) -> None:
    root = _three_commits(tmp_path / "repo")

    proc = run(root, "search", "puffins", "--since", "HEAD~2")

    assert proc.returncode == 2
    assert "modified_after" not in proc.stderr
    assert "--since 'HEAD~2' names a commit" in proc.stderr
    assert "--ref HEAD~2" in proc.stderr
    assert "kenso-git changed --since HEAD~2" in proc.stderr


def test_search_since_unreadable_names_since(tmp_path: Path) -> None:
    root = _three_commits(tmp_path / "repo")

    proc = run(root, "search", "puffins", "--since", "someday")

    assert proc.returncode == 2
    assert "modified_after" not in proc.stderr
    assert "--since 'someday' cannot be read" in proc.stderr
    assert "--since 7d" in proc.stderr
    assert "--ref REV" in proc.stderr
