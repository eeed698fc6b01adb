from __future__ import annotations

from tests.gitrepo import fixed_git_identity
from tests.gitrepo import repo

__all__ = ["fixed_git_identity", "repo"]
