"""End-to-end tests: real installs, real pre-commit, long property runs. All of them are slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import fixed_git_identity
from tests.gitrepo import repo

__all__ = ["fixed_git_identity", "repo"]

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder `slow`: the folder is the slow lane."""
    for item in items:
        if item.path.is_relative_to(HERE):  # the hook sees the whole session's items
            item.add_marker(pytest.mark.slow)
