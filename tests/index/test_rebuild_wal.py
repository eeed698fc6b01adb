"""`ingest --rebuild` recovers a corrupt index that still has a stale WAL beside it: the
old -wal and -shm go with the old file, and none of their pages reach the new one (issue
#14, "recovery is a command that removes the WAL and SHM with it")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.index.test_reliability import _leave_a_stale_wal
from tests.index.test_reliability import cli
from tests.index.test_reliability import indexed
from tests.index.test_reliability import integrity

__all__ = ["indexed"]  # the fixture


def test_rebuild_of_a_corrupt_index_with_a_stale_wal_leaves_none_of_it(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    _leave_a_stale_wal(db)  # 50 'junk' meta rows live only in the -wal
    size = db.stat().st_size
    with db.open("r+b") as out:  # and the main file's pages after the first few are damaged
        out.seek(4096 * 3)
        out.write(b"\xa5" * (size - 4096 * 3))
    failed = cli(indexed, "ingest", "--no-lint")
    assert failed.returncode == 1 and "ingest --rebuild" in failed.stderr, failed.stderr
    rebuilt = cli(indexed, "ingest", "--rebuild", "--no-lint")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert integrity(db) == "ok"
    conn = sqlite3.connect(db)
    try:
        junk = conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'junk%'").fetchone()[0]
    finally:
        conn.close()
    assert junk == 0  # the old WAL was not replayed into the new file
    stats = cli(indexed, "stats", "--json")
    assert stats.returncode == 0 and '"documents": 6' in stats.stdout, stats.stderr
    assert not list(db.parent.glob("docs.db.building-*"))
