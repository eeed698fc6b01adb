"""What a commit made now would change (repo/staged.py): the paths it adds or changes, a
rename's new path among them, and those it renames away or deletes."""

from __future__ import annotations

from pathlib import Path

from kenso_git.repo.staged import StagedChanges
from kenso_git.repo.staged import staged_changes
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

TEXT = "A page with enough words that git's similarity index sees the same file.\n" * 5


def test_staged_renames_deletions_and_changes_are_told_apart(repo: Path) -> None:
    write(repo, {"docs/a b.md": TEXT, "docs/gone.md": "gone\n", "docs/kept.md": "kept\n"})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/a b.md", "docs/ä b.md")
    git(repo, "rm", "-q", "docs/gone.md")
    write(repo, {"docs/kept.md": "changed\n", "docs/new.md": "new\n", "docs/loose.md": "x\n"})
    git(repo, "add", "docs/kept.md", "docs/new.md")
    assert staged_changes(find_workspace(repo)) == StagedChanges(
        ("docs/kept.md", "docs/new.md", "docs/ä b.md"), ("docs/gone.md", "docs/a b.md")
    )


def test_with_no_commit_yet_everything_staged_is_added(repo: Path) -> None:
    write(repo, {"docs/a.md": TEXT})
    git(repo, "add", "docs/a.md")
    assert staged_changes(find_workspace(repo)) == StagedChanges(("docs/a.md",), ())


def test_outside_git_nothing_is_staged(tmp_path: Path) -> None:
    write(tmp_path, {"docs/a.md": TEXT})
    assert staged_changes(find_workspace(tmp_path)) == StagedChanges()
