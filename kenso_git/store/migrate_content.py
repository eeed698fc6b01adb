"""Schema 3 -> 4: chunk text stored packed (store/textcodec.py)."""

from __future__ import annotations

import sqlite3

from kenso_git.store import schema
from kenso_git.store import textcodec
from kenso_git.store import trigram
from kenso_git.store import vectors

# Every trigger of the versioned schema: the views they belong to, or the text they read,
# change. The side tables' update triggers are off while rows are rewritten: the text they
# index does not change, and vectors_au would throw away every chunk's vector.
_TRIGGERS = ("chunks_ai", "chunks_ad", "chunks_au", "documents_bu", "documents_bd")
_SIDE_TRIGGERS = ("cjk_au", "vectors_au")
BATCH = 2000  # rows read and rewritten at a time: memory stays bounded on big indexes


def pack_content(conn: sqlite3.Connection) -> None:
    """Store every chunk row's `content` and `search_extra` as `textcodec.pack` does.

    The views and triggers are made again to read the text through `kenso_text`; the FTS
    index is left as it is, since the text they show it is unchanged. Runs inside the
    caller's transaction.
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
        changed = []
        for row_id, content, extra in rows:
            packed = (
                textcodec.pack(textcodec.unpack(content)),
                None if extra is None else textcodec.pack(textcodec.unpack(extra)),
            )
            if packed != (content, extra):
                changed.append((*packed, row_id))
        conn.executemany(
            "UPDATE chunk_rows SET content = ?, search_extra = ? WHERE id = ?", changed
        )
    for statement in schema.DDL:
        if "TRIGGER" in statement:
            conn.execute(statement)
    trigram.refresh_triggers(conn)  # its insert trigger read the content column as text
    if vectors.present(conn):
        conn.execute(next(d for d in vectors.DDL if "vectors_au" in d))
