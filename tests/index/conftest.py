"""Fixtures of the index tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A git repository of two committed docs (Alpha, Bravo), indexed."""
    repo = init_repo(
        tmp_path / "repo",
        {
            "docs/a.md": doc("Alpha", "Alpha talks about the original wording at length.\n"),
            "docs/b.md": doc("Bravo", "Bravo covers another subject entirely, in words.\n"),
        },
    )
    KnowledgeBase.open(repo).ingest()
    return repo
