"""The index is never more readable than its most private source: created owner-only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo


def test_the_index_and_its_wal_are_created_owner_only(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/secret.md": doc("Secret Plan")})
    (root / "docs" / "secret.md").chmod(0o600)
    old = os.umask(0o022)
    try:
        kb = KnowledgeBase.open(root)
        kb.ingest()
        kb.sync()  # a write through the published file: the WAL comes to life
        (root / "docs" / "more.md").write_text(doc("More Notes"), encoding="utf-8")
        kb.sync()
    finally:
        os.umask(old)
    db = root / ".kenso" / "docs.db"
    created = [p for p in db.parent.iterdir() if p.name.startswith("docs.db")]
    assert db in created
    for path in created:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
