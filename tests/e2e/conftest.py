"""End-to-end tests: real installs, real pre-commit, long property runs. All of them are slow."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.gitrepo import fixed_git_identity
from tests.gitrepo import repo

__all__ = ["fixed_git_identity", "repo"]

HERE = Path(__file__).parent
REPO_ROOT = HERE.parents[1]


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder `slow`: the folder is the slow lane."""
    for item in items:
        if item.path.is_relative_to(HERE):  # the hook sees the whole session's items
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed copy of this checkout (its tracked and new files), as pre-commit clones it."""
    if not (REPO_ROOT / ".pre-commit-hooks.yaml").is_file():
        pytest.skip("not running from a kenso-git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    dest = tmp_path_factory.mktemp("hook-repo")
    for rel in filter(None, listed):
        if rel.startswith(("tests/", "benchmarks/", "docs/")) or not (REPO_ROOT / rel).is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, target)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, capture_output=True)
    return dest
