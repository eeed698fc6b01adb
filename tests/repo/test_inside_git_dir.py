"""`ingest` (or any command) run inside a git dir is refused with a usage error naming the
work tree, as a bare repository is: it used to build an empty index in `.git/objects/`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli


@pytest.mark.parametrize("inside", [".git", ".git/objects", ".git/refs/heads"])
def test_ingest_inside_the_git_dir_is_refused_and_builds_nothing(
    tmp_path: Path, inside: str
) -> None:
    root = init_repo(tmp_path / "repo", {"a.md": doc("Alpha", "apples grow here. " * 20)})
    folder = root / inside
    proc = run_cli(folder, "ingest", "--no-lint")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"kenso-git: error: {folder} is inside the git directory {root / '.git'}: it holds "
        "git's own data, not your docs",
        f"  hint: run kenso-git in the work tree ({root})",
    ]
    assert not list(root.rglob(".kenso"))


def test_a_linked_work_trees_git_dir_is_refused_too(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"a.md": doc("Alpha", "apples grow here. " * 20)})
    git(root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    folder = root / ".git" / "worktrees" / "linked"
    proc = run_cli(folder, "ingest", "--no-lint")
    assert proc.returncode == 2, proc.stderr
    assert "is inside the git directory" in proc.stderr
    assert not list(root.rglob(".kenso"))
