"""The SQL function kenso-git's connections add: `kenso_terms`, which the FTS triggers call.

A chunk's `Expanded terms:` line is not stored (store/schema.py, TERMS_OF): the triggers
that keep `chunks_fts` equal to `chunk_rows` make it from the row's content with this
function. No view calls it, so any SQLite client reads the index; a client without it
cannot write chunk rows (their triggers name it), which only kenso-git should do.
"""

from __future__ import annotations

import sqlite3

from kenso_git.store import schema


def _sql_terms(content: object) -> str | None:
    if not isinstance(content, str):  # NULL, or a value a tool stored as a BLOB or number
        return None
    from kenso_git.text.terms import expanded_line  # loaded by the first write, not by reads

    return expanded_line(content)


def register(conn: sqlite3.Connection) -> None:
    """Give `conn` the SQL function the FTS triggers call."""
    conn.create_function(schema.TERMS_FUNCTION, 1, _sql_terms, deterministic=True)
