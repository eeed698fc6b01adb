"""The static-vector side table: one float16 embedding per chunk (`vectors = on`, #18).

Like the CJK side index (store/trigram.py) it is outside the versioned schema: an ingest
creates it with IF NOT EXISTS when the setting is on and drops it when it is off. The
triggers only delete: a chunk removed or rewritten loses its vector in the same
transaction, whoever writes, and the ingest embeds the chunks left without one
(`missing`) before it commits. A reader blends vectors only where the table exists.
"""

from __future__ import annotations

import json
import sqlite3

TABLE = "chunk_vectors"
_TRIGGERS = ("vectors_ad", "vectors_au")
DDL: tuple[str, ...] = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY, vec BLOB NOT NULL)",
    f"""
    CREATE TRIGGER IF NOT EXISTS vectors_ad AFTER DELETE ON chunk_rows BEGIN
        DELETE FROM {TABLE} WHERE id = old.id;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS vectors_au AFTER UPDATE OF title, doc_title, content
    ON chunk_rows BEGIN
        DELETE FROM {TABLE} WHERE id = old.id;
    END
    """,
)


def present(conn: sqlite3.Connection) -> bool:
    """True when the index has a vector table."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    return row is not None


def ensure(conn: sqlite3.Connection, on: bool) -> bool:
    """Create or drop the table per the setting (inside the write transaction); True when
    it changed the index."""
    if on == present(conn):
        return False
    if on:
        for statement in DDL:
            conn.execute(statement)
        return True
    for trigger in _TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    return True


# What a chunk's vector is made from (of chunk_rows `r`): its title line and content.
EMBEDDED_TEXT = "coalesce(r.title, '') || coalesce(' ' || r.doc_title, '') || char(10) || r.content"


def missing(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """(id, text to embed) of every chunk without a vector."""
    return conn.execute(
        f"SELECT r.id, {EMBEDDED_TEXT} FROM chunk_rows r WHERE r.id NOT IN (SELECT id FROM {TABLE})"
    ).fetchall()


def write(conn: sqlite3.Connection, rows: list[tuple[int, bytes]]) -> None:
    """Store (chunk id, float16 bytes) pairs."""
    conn.executemany(f"INSERT OR REPLACE INTO {TABLE}(id, vec) VALUES (?, ?)", rows)


def read(conn: sqlite3.Connection, ids: list[int]) -> dict[int, bytes]:
    """The stored vectors of `ids` (a chunk without one is left out)."""
    sql = f"SELECT id, vec FROM {TABLE} WHERE id IN (SELECT value FROM json_each(?))"
    return dict(conn.execute(sql, (json.dumps(ids),)).fetchall())


def fill(conn: sqlite3.Connection) -> bool:
    """Embed every chunk without a vector (inside the write transaction); True when any.

    Raises:
        ConfigError: wordllama is not installed.
    """
    rows = missing(conn)
    if not rows:
        return False
    from kenso_git.text.embed import embed

    write(conn, list(zip([r[0] for r in rows], embed([r[1] for r in rows]), strict=True)))
    return True
