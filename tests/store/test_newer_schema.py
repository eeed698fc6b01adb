"""An index written by a newer kenso-git is named as such, even when its tables were renamed."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.errors import DatabaseError
from kenso_git.errors import ExitCode
from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from kenso_git.store.connection import open_reader
from tests.helpers import doc
from tests.helpers import init_repo


def _newer_index(tmp_path: Path) -> tuple[Path, Path]:
    """A real index, then changed the way a later schema may change it: `chunks` renamed."""
    root = init_repo(tmp_path / "repo", {"docs/guide.md": doc("Deployment Guide", "Ship it.")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.close()
    db = root / ".kenso" / "docs.db"
    conn = sqlite3.connect(db)
    kind = conn.execute("SELECT type FROM sqlite_master WHERE name = 'chunks'").fetchone()[0]
    conn.execute(f"DROP {kind.upper()} chunks")  # 627cdd9 read schema 2 this way: no `chunks`
    conn.execute(f"PRAGMA user_version={schema.SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    return root, db


def test_a_reader_names_the_newer_schema_not_a_missing_index(tmp_path: Path) -> None:
    _, db = _newer_index(tmp_path)
    with pytest.raises(DatabaseError, match="newer kenso-git") as caught:
        open_reader(db)
    assert caught.value.hint is not None and "upgrade kenso-git" in caught.value.hint


@pytest.mark.parametrize("sync", ["1", "0"])
def test_cli_search_on_a_newer_index_says_upgrade(tmp_path: Path, sync: str) -> None:
    root, db = _newer_index(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "search", "deployment", "--db", str(db)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, "KENSO_QUERY_SYNC": sync},
    )
    # exit 3 means "run ingest once", which would replace the newer index: wrong advice
    assert proc.returncode == ExitCode.FAILURE, proc.stderr
    assert "newer kenso-git" in proc.stderr
    assert "no search index" not in proc.stderr
