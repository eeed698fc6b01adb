"""Each indexed document's typo-correction words (`text.titlewords`), kept when it is written.

The typo correction (`search.fuzzy`) used to read them from every chunk's title: at 48,600
docs that was 575,000 rows beside 243 MB of packed text, ~3 s for the first zero-hit search
of each process. This table holds one short row per document instead, with the blob id it
was made from: a row whose blob is not the file's (written by a kenso-git or kenso that
does not know the table) is not used, and those documents' words are read from the chunks
as before. Not part of the versioned schema: a writer creates it if missing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

TABLE = "doc_words"
DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ("
    "path TEXT PRIMARY KEY, blob_id TEXT NOT NULL, words TEXT NOT NULL) WITHOUT ROWID"
)


def ensure(conn: sqlite3.Connection) -> None:
    """Create the table (in the caller's write transaction)."""
    conn.execute(DDL)


def write(conn: sqlite3.Connection, path: str, blob_id: str, words: Sequence[str]) -> None:
    """Record `path`'s words, made from the file `blob_id` (no-op without the table)."""
    sql = f"INSERT OR REPLACE INTO {TABLE}(path, blob_id, words) VALUES (?, ?, ?)"
    _execute(conn, sql, (path, blob_id, " ".join(words)))


def forget(conn: sqlite3.Connection, path: str) -> None:
    """Drop `path`'s words (no-op without the table)."""
    _execute(conn, f"DELETE FROM {TABLE} WHERE path = ?", (path,))


def read(conn: sqlite3.Connection, paths: Sequence[str] | None) -> dict[str, tuple[str, str]]:
    """path -> (blob id, space-separated words) of every document (or of `paths`) with a
    row; empty when the index has no table."""
    sql = f"SELECT path, blob_id, words FROM {TABLE}"
    if paths is not None:
        sql += " WHERE path IN (SELECT value FROM json_each(?))"
    rows = _execute(conn, sql, () if paths is None else (json.dumps(list(paths)),))
    return {path: (blob, words) for path, blob, words in rows}


def _execute(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> list[tuple[str, ...]]:
    """The rows of `sql`; none when the index has no table (made before it, or read-only)."""
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return []
