"""A damaged index (pages overwritten) is noticed by every writer, with the repair named:
`sync`, a git hook and a query's sync check every page when the file changed since a
kenso-git writer last left it; `stats --json` never dies with a traceback (#26)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenso_git.index import build
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

DOCS = {f"docs/d{i}.md": doc(f"Doc {i}", f"topic{i} words to index here. " * 60) for i in range(8)}
REBUILD = "ingest --rebuild"


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", DOCS)
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return root


def _pages(db: Path) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return conn.execute("PRAGMA page_size").fetchone()[0], conn.execute(
            "PRAGMA page_count"
        ).fetchone()[0]
    finally:
        conn.close()


def _damage(db: Path, table: str) -> None:
    """Overwrite the root page of `table`: what a no-change sync never reads."""
    size, _count = _pages(db)
    conn = sqlite3.connect(db)
    try:
        page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
        number = page.fetchone()[0]
    finally:
        conn.close()
    with db.open("r+b") as out:
        out.seek((number - 1) * size)
        out.write(b"\xa5" * size)


@pytest.mark.parametrize("table", ["chunk_rows", "chunks_fts_data", "link_rows"])
def test_sync_names_the_repair_of_damaged_pages_it_would_not_read(
    indexed: Path, table: str
) -> None:
    db = indexed / ".kenso" / "docs.db"
    _damage(db, table)
    proc = cli(indexed, "sync")
    assert proc.returncode == 1, proc.stdout
    assert "corrupt" in proc.stderr and REBUILD in proc.stderr, proc.stderr
    assert "unchanged" not in proc.stdout


def test_a_hook_names_the_repair_and_never_fails_git(indexed: Path) -> None:
    _damage(indexed / ".kenso" / "docs.db", "chunk_rows")
    proc = cli(indexed, "hook", "post-rewrite", "amend")
    assert proc.returncode == 0
    assert "corrupt" in proc.stderr and REBUILD in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_query_sync_says_its_answer_is_stale_and_why(indexed: Path) -> None:
    _damage(indexed / ".kenso" / "docs.db", "link_rows")  # not read by this search
    write(indexed, {"docs/d1.md": doc("Doc 1", "topic1 edited words. " * 60)})
    kb = KnowledgeBase.open(indexed)
    try:
        kb.search_docs("topic3")
        assert kb.freshness.stale
        assert kb.freshness.reason and REBUILD in kb.freshness.reason
    finally:
        kb.close()


def test_stats_json_never_dies_with_a_traceback_whatever_page_is_damaged(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kenso_git.cli.main import main

    db = indexed / ".kenso" / "docs.db"
    clean = db.read_bytes()
    size, count = _pages(db)
    monkeypatch.chdir(indexed)
    for page in range(2, count + 1):
        db.write_bytes(clean)
        with db.open("r+b") as out:
            out.seek((page - 1) * size)
            out.write(b"\xa5" * size)
        with pytest.raises(SystemExit) as done:  # anything else is a traceback
            main(["stats", "--json"])
        assert done.value.code in (0, 1), page


def test_a_sync_after_a_clean_writer_reads_no_page_it_needs_not(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[Path] = []
    real = build.check_pages

    def counted(conn: sqlite3.Connection, db_path: Path) -> None:
        checks.append(db_path)
        real(conn, db_path)

    monkeypatch.setattr(build, "check_pages", counted)
    kb = KnowledgeBase.open(indexed)
    try:
        kb.sync()
        kb.sync()
        write(indexed, {"docs/d2.md": doc("Doc 2", "topic2 edited words. " * 60)})
        kb.sync()
        kb.sync()
    finally:
        kb.close()
    assert checks == []  # the ingest left the file as it found it: no quick_check (60 ms/25 MB)
