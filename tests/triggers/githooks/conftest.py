from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity
from tests.gitrepo import repo
from tests.gitrepo import write
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import ingest

__all__ = ["fixed_git_identity", "indexed", "repo"]


@pytest.fixture
def indexed(repo: Path) -> Path:
    write(repo, {f"docs/d{i}.md": f"# Doc {i}\n\nDoc {i} {BODY}" for i in range(3)})
    commit_all(repo, "docs")
    ingest(repo)
    return repo
