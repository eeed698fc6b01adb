"""Schema migrations that need more than SQL statements (store/schema.py holds the DDL)."""

from __future__ import annotations

import sqlite3

from kenso_git.store import schema

_EXPANDED = "\n\nExpanded terms: "
# The schema but the links, which the 3 -> 4 step makes of the old table (migrate_links).
_DDL = tuple(statement for statement in schema.DDL if statement not in schema.LINKS_DDL)


def labels_once(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2: the labels each chunk row repeated move to one `documents` row.

    The rows move to `chunk_rows` and `chunks` becomes a view of them; the FTS index is
    left as it is, since `chunks_search` shows it the same text as before. A document
    whose rows do not split cleanly (written by a tool, not by kenso-git) keeps its own
    text in each row. Runs inside the caller's transaction.
    """
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP VIEW IF EXISTS chunks_search")
    conn.execute("DROP INDEX IF EXISTS idx_chunks_category")
    conn.execute("ALTER TABLE chunks RENAME TO chunk_rows")
    for statement in _DDL:
        if "TRIGGER" not in statement:  # no trigger may fire while rows move
            conn.execute(statement)
    moves: list[tuple[str | None, int]] = []
    docs: list[tuple[str, str | None, str]] = []
    for path, rows in _rows_by_path(conn):
        split = _split(path, rows)
        if split is None:
            continue
        labels, own = split
        docs.append((path, rows[0][1], labels))
        moves.extend(zip(own, (row[0] for row in rows), strict=True))
    conn.executemany("INSERT INTO documents(path, tags, labels) VALUES (?, ?, ?)", docs)
    conn.executemany("UPDATE chunk_rows SET search_extra = ?, tags = NULL WHERE id = ?", moves)
    for statement in _DDL:
        if "TRIGGER" in statement:
            conn.execute(statement)


Row = tuple[int, str | None, str | None]  # id, tags, search_extra


def _rows_by_path(conn: sqlite3.Connection) -> list[tuple[str, list[Row]]]:
    out: dict[str, list[Row]] = {}
    query = "SELECT file_path, id, tags, search_extra FROM chunk_rows ORDER BY file_path, id"
    for path, row_id, tags, extra in conn.execute(query):
        out.setdefault(path, []).append((row_id, tags, extra))
    return list(out.items())


def _split(path: str, rows: list[Row]) -> tuple[str, list[str | None]] | None:
    """(shared labels, each row's own line) when every row of `path` has the same tags and
    a search extra made as text.chunk.search_labels makes it; else None."""
    source = "Source: " + path
    shared: str | None = None
    own: list[str | None] = []
    for _id, tags, extra in rows:
        if extra is None or tags != rows[0][1]:
            return None
        cut = extra.rfind(_EXPANDED)
        if cut >= 0 and "\n" not in extra[cut + 2 :] and extra[:cut].endswith(source):
            head, mine = extra[:cut], extra[cut + 2 :]
        elif extra.endswith(source):
            head, mine = extra, None
        else:
            return None
        if shared is not None and head != shared:
            return None
        shared = head
        own.append(mine)
    return None if shared is None else (shared, own)


_TRIGGERS = ("chunks_ai", "chunks_ad", "chunks_au", "documents_bu", "documents_bd")
_FTS = schema.FTS_COLUMNS.replace("rowid", "id")


def labels_capped(conn: sqlite3.Connection) -> None:
    """Schema 2 -> 3: the chunks past a document's first index at most LABELS_CAP
    characters of its labels (schema.label_head).

    Only the documents whose labels are longer are re-indexed: their FTS entries are
    deleted under the values they were made with (the view shows those while no head is
    set), the heads set, and the entries made again. Runs inside the caller's transaction.
    """
    for trigger in _TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP VIEW IF EXISTS chunks_search")
    have = {row[1] for row in conn.execute("PRAGMA table_info(documents)")}
    for column in ("tags_head", "labels_head"):
        if column not in have:  # a 1 -> 2 step has just made the table with them
            conn.execute(f"ALTER TABLE documents ADD COLUMN {column} INTEGER")
    for statement in _DDL:
        if "TRIGGER" not in statement:
            conn.execute(statement)
    cut = []
    for path, tags, labels in conn.execute("SELECT path, tags, labels FROM documents"):
        heads = schema.label_head(tags), schema.label_head(labels)
        if heads != (None, None):
            cut.append((path, *heads))
    rows = "FROM chunks_search WHERE id IN (SELECT id FROM chunk_rows WHERE file_path = ?)"
    for path, tags_head, labels_head in cut:
        conn.execute(
            f"INSERT INTO chunks_fts(chunks_fts, {schema.FTS_COLUMNS}) SELECT 'delete', {_FTS} "
            + rows,
            (path,),
        )
        conn.execute(
            "UPDATE documents SET tags_head = ?, labels_head = ? WHERE path = ?",
            (tags_head, labels_head, path),
        )
        conn.execute(f"INSERT INTO chunks_fts({schema.FTS_COLUMNS}) SELECT {_FTS} " + rows, (path,))
    for statement in _DDL:
        if "TRIGGER" in statement:
            conn.execute(statement)
