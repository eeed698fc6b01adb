"""Schema 4 -> 5: chunk text stored plain, and each chunk's expanded terms not stored.

Schema 4 stored `chunk_rows.content` and `search_extra` of 100 bytes or more as a BLOB
when that was smaller: the text's UTF-8 byte length (4 bytes, big-endian), then its raw
deflate. Its views read them through a function only kenso-git registered (`kenso_text`),
so no other SQLite client could read `chunks` (#26). An index of schema 1 to 3 passes
this step too: its rows are plain already, but its own extras hold the expanded terms.
"""

from __future__ import annotations

import sqlite3
import zlib

from kenso_git.store import schema
from kenso_git.store import trigram
from kenso_git.store import vectors
from kenso_git.text.terms import expanded_line

# Every trigger of the versioned schema, and the side tables' ones that named schema 4's
# functions (`kenso_text`, `kenso_has_cjk`): each is made again from today's DDL, once
# the rows are plain. No trigger fires while rows are rewritten: the text the FTS and CJK
# indexes hold does not change, and vectors_au would throw away every chunk's vector.
_TRIGGERS = ("chunks_ai", "chunks_ad", "chunks_au", "documents_bu", "documents_bd")
_SIDE_TRIGGERS = ("cjk_ai", "cjk_ad", "cjk_au", "vectors_ad", "vectors_au")
BATCH = 2000  # rows read and rewritten at a time: memory stays bounded on big indexes
_LENGTH = 4  # schema 4's BLOB: the text's byte length, then its raw deflate


def _text(value: str | bytes | None) -> str | None:
    if isinstance(value, bytes):
        return zlib.decompress(memoryview(value)[_LENGTH:], -15).decode("utf-8")
    return value


def plain_content(conn: sqlite3.Connection) -> None:
    """Store every chunk row's text plain and drop its own extra where it is the
    content's expanded line, which the triggers now make (schema.TERMS_OF).

    The views and triggers are made again; the FTS index is left as it is: the values
    the triggers give it are the ones it was made with. Runs inside the caller's
    transaction.
    """
    for trigger in (*_TRIGGERS, *_SIDE_TRIGGERS):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP VIEW IF EXISTS chunks_search")
    conn.execute("DROP VIEW IF EXISTS chunks")  # and its INSTEAD OF triggers
    for statement in schema.DDL:
        if "TRIGGER" not in statement:
            conn.execute(statement)
    after = 0
    while True:
        rows = conn.execute(
            "SELECT id, content, search_extra FROM chunk_rows WHERE id > ? ORDER BY id LIMIT ?",
            (after, BATCH),
        ).fetchall()
        if not rows:
            break
        after = rows[-1][0]
        changed = [_plain_row(*row) for row in rows]
        conn.executemany(
            "UPDATE chunk_rows SET content = ?, search_extra = ? WHERE id = ?",
            [row for row in changed if row is not None],
        )
    for statement in schema.DDL:
        if "TRIGGER" in statement:
            conn.execute(statement)
    trigram.refresh_triggers(conn)
    if vectors.present(conn):
        for statement in vectors.DDL[1:]:
            conn.execute(statement)


def _plain_row(
    row_id: int, content: str | bytes, extra: str | bytes | None
) -> tuple[str, str | None, int] | None:
    """A row's new (content, search_extra, id), or None when it stays as it is."""
    text, own = _text(content) or "", _text(extra)
    line = expanded_line(text)
    if own is not None and own == line:
        own = None
    elif own is None and line is not None:
        own = ""  # a tool's row indexed without the line: '' adds no token either
    return None if (text, own) == (content, extra) else (text, own, row_id)
