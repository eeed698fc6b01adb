"""`serve` and the watcher never create an index, also when `.kenso` goes away under them (#26).

The removal is made to land between their "is there an index?" look and the sync: what a user's
`rm -rf .kenso` did one round in ten while the server synced an edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import NoIndexError
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.service import Service
from kenso_git.triggers.watcher import Watcher
from tests.helpers import doc
from tests.helpers import init_repo


def _indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "alpha words " * 20)})
    KnowledgeBase.open(root).ingest()
    assert (root / ".kenso" / "docs.db").is_file()
    return root


def _remove_before_sync(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    real = KnowledgeBase.sync

    def racing(self: KnowledgeBase, **options: Any) -> Any:
        shutil.rmtree(root / ".kenso", ignore_errors=True)  # after the caller looked
        return real(self, **options)

    monkeypatch.setattr(KnowledgeBase, "sync", racing)


def test_reindex_never_creates_an_index_removed_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _indexed(tmp_path)
    service = Service(root)
    service.kb().has_index()
    _remove_before_sync(monkeypatch, root)
    with pytest.raises(NoIndexError):
        service.reindex()
    assert not (root / ".kenso" / "docs.db").exists()


def test_the_watcher_never_creates_an_index_removed_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _indexed(tmp_path)
    kb = KnowledgeBase.open(root)
    watcher = Watcher(kb, poll_only=True)
    _remove_before_sync(monkeypatch, root)
    (root / "docs" / "a.md").write_text(doc("Alpha", "changed words " * 20), encoding="utf-8")
    with pytest.raises(NoIndexError):
        watcher._sync(["docs/a.md"], full=False, reason="test")
    assert not (root / ".kenso" / "docs.db").exists()
