"""Long-lived readers (the MCP server's): they follow a replaced index and read one snapshot."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write


def cli(cwd: Path, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def paths(kb: KnowledgeBase, query: str) -> set[str]:
    return {hit.file_path for hit in kb.search(query, limit=20).hits}


def test_a_reader_follows_an_index_that_was_deleted_and_built_again(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha words. " * 30)})
    cli(root, "ingest", "--no-lint")
    kb = KnowledgeBase.open(root)
    try:
        assert paths(kb, "alpha") == {"docs/a.md"}
        shutil.rmtree(root / ".kenso")  # what a user does when told the index is broken
        write(root, {"docs/b.md": doc("Omega", "Omega words. " * 30)})
        cli(root, "ingest", "--no-lint")
        assert paths(kb, "omega") == {"docs/b.md"}
        write(root, {"docs/c.md": doc("Omega two", "Omega again. " * 30)})
        cli(root, "sync")  # later syncs write the new file, which the reader now reads
        assert paths(kb, "omega") == {"docs/b.md", "docs/c.md"}
        cli(root, "ingest", "--rebuild", "--no-lint")
        assert paths(kb, "omega") == {"docs/b.md", "docs/c.md"}
        assert kb.state(check_stale=False).documents == 3
    finally:
        kb.close()


def test_state_reads_counts_and_meta_in_one_snapshot(tmp_path: Path) -> None:
    files = {f"docs/d{i}.md": doc(f"Doc {i}") for i in range(4)}
    root = init_repo(tmp_path / "repo", files)
    cli(root, "ingest", "--no-lint")
    db = root / ".kenso" / "docs.db"
    kb = KnowledgeBase.open(root)
    before = kb.state(check_stale=False)
    begins: list[str] = []

    def write_between_reads(statement: str) -> None:
        # A sync by another process commits right as the second read transaction starts.
        if statement.strip().upper() != "BEGIN":
            return
        begins.append(statement)
        if len(begins) == 2:
            writer = sqlite3.connect(db, isolation_level=None)
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("DELETE FROM chunks WHERE file_path = 'docs/d0.md'")
            writer.execute("UPDATE meta SET value = ? WHERE key = ?", ("f" * 40, schema.META_HEAD))
            writer.execute("COMMIT")
            writer.close()

    conn = kb.read(lambda c: c)
    conn.set_trace_callback(write_between_reads)
    try:
        state = kb.state(check_stale=False)
    finally:
        conn.set_trace_callback(None)
        kb.close()
    seen = (state.documents, state.as_of)
    assert seen in {(before.documents, before.as_of), (before.documents - 1, "f" * 40)}, seen


def test_a_reader_that_opens_while_the_index_is_replaced_reads_the_new_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite opens the database file on connect but its -wal and -shm by name at the first
    read: a rebuild published in between paired the old file with the new journal ("disk
    I/O error" in the soak, or answers from the old index)."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha words. " * 30)})
    cli(root, "ingest", "--no-lint")
    write(root, {"docs/b.md": doc("Omega", "Omega words. " * 30)})
    real_connect = sqlite3.connect
    replaced: list[str] = []

    def connect_then_replace(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        if not replaced and "mode=ro" in str(args[0]):
            replaced.append(str(args[0]))  # the fault: a rebuild lands inside the open
            cli(root, "ingest", "--rebuild", "--no-lint")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect_then_replace)
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)
    try:
        assert paths(kb, "omega") == {"docs/b.md"}
        assert replaced
    finally:
        kb.close()


def test_a_read_whose_transaction_sqlite_ended_raises_the_real_error(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha words. " * 30)})
    cli(root, "ingest", "--no-lint")
    kb = KnowledgeBase.open(root)

    def fails(conn: sqlite3.Connection) -> None:
        conn.execute("ROLLBACK")  # what SQLite does itself after an I/O error
        raise ValueError("the real cause")

    try:
        with pytest.raises(ValueError, match="the real cause"):
            kb.read(fails)
    finally:
        kb.close()
