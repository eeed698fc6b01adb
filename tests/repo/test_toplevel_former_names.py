"""Which top-level names the work tree lacks git had (repo/toplevel.py): renamed or deleted
in a commit, or since HEAD (staged or not); a name git never had is not one."""

from __future__ import annotations

from pathlib import Path

from kenso_git.repo.toplevel import former_names
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write


def test_names_renamed_deleted_or_unstaged_away_are_former_names(repo: Path) -> None:
    write(repo, {"src/pkg/tool.py": "x\n", "old/a.txt": "a\n", "tmp/b.txt": "b\n"})
    commit_all(repo, "init")
    git(repo, "mv", "src", "lib")
    git(repo, "rm", "-rq", "old")
    commit_all(repo, "rename src, drop old")
    git(repo, "rm", "-rq", "tmp")  # staged, not committed
    asked = {"src", "old", "tmp", "application", "owner"}
    assert former_names(find_workspace(repo), asked) == {"src", "old", "tmp"}


def test_a_repository_with_no_commit_has_no_former_names(repo: Path, tmp_path: Path) -> None:
    assert former_names(find_workspace(repo), {"src"}) == frozenset()
    write(tmp_path / "plain", {"a.md": "a\n"})
    assert former_names(find_workspace(tmp_path / "plain"), {"src"}) == frozenset()
