"""`rm -rf .kenso` removes the write lock with the index: two writers may then both build a
new index. The one that publishes second updates the first one's index instead of failing,
and a query's sync never builds one at all (#14, found by the soak)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import NoIndexError
from kenso_git.index import build
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import index_dump


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {f"docs/d{i}.md": doc(f"Doc {i}", f"Body {i} words here.\n") for i in range(5)}
    return init_repo(tmp_path / "repo", files)


def test_a_build_that_finds_an_index_published_meanwhile_updates_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_apply = build._apply
    other: list[int] = []

    def apply_then_race(*args: Any, **kwargs: Any) -> None:
        real_apply(*args, **kwargs)
        if not other:  # the fault: the lock file is gone, and another ingest publishes first
            (repo / ".kenso" / "sync.lock").unlink()
            (repo / "docs" / "d9.md").write_text(doc("Doc 9", "Only the other writer saw it.\n"))
            proc = subprocess.run(
                [sys.executable, "-m", "kenso_git", "ingest", "--no-lint"],
                cwd=repo,
                capture_output=True,
                text=True,
                timeout=120,
            )
            other.append(proc.returncode)

    monkeypatch.setattr(build, "_apply", apply_then_race)
    report = KnowledgeBase.open(repo).ingest()
    monkeypatch.undo()
    assert other == [0]
    assert report.count("error") == 0
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


def test_a_query_sync_never_builds_an_index(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    with pytest.raises(NoIndexError):
        kb.sync(paths=["docs/d0.md"], hand_off=0.25, create=False)
    assert not (repo / ".kenso" / "docs.db").exists()
