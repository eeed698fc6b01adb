"""Real git repositories for tests: fixed identities and dates, `repo` and `commit_all`.

The fixtures are imported by the conftest of each folder whose tests run git.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import git
from tests.helpers import write

__all__ = ["commit_all", "git", "write"]

ENV_FIXED = {
    "GIT_AUTHOR_NAME": "kenso test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "kenso test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "1700000000 +0000",
    "GIT_COMMITTER_DATE": "1700000000 +0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


@pytest.fixture(autouse=True)
def fixed_git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identities and dates on top of tests/conftest.py's isolated HOME and config."""
    for key, value in ENV_FIXED.items():
        monkeypatch.setenv(key, value)


def commit_all(root: Path, message: str = "test") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    yield root
