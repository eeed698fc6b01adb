"""Running totals of the index: documents, chunks, content bytes, links, and per category.

`state()` (behind `stats`, `health_check` and `index_state`) used to count them from the
rows on every call: summing every chunk's length took 0.6-1.2 s at 48,600 docs (#32).
Triggers on `chunk_rows` and `link_rows` keep them in the writer's own transaction, so
whoever writes the rows (this version, an older one, kenso itself through the `chunks`
view) keeps them exact, and a read costs a few rows whatever the size of the index.

Like the CJK side index (`store/trigram.py`), the tables and triggers are outside the
versioned schema: every writer calls `ensure` in its write transaction, which creates
them and counts the rows once (the backfill of an index made before them), or counts
again if a trigger went missing (a migration that rebuilt a table drops its triggers).
A reader of an index no writer has touched since falls back to counting (`read`).
"""

from __future__ import annotations

import sqlite3

from kenso_git.records import NamedTuple

TABLE = "index_totals"
CATEGORY_TABLE = "category_totals"
_TRIGGERS = ("totals_ci", "totals_cd", "totals_cu", "totals_li", "totals_ld")

# A category's key: NULL and '' are different categories, and a primary key holds no NULL.
_KEY = "coalesce('=' || {r}.category, '')"
_DOC_LEFT = "NOT EXISTS (SELECT 1 FROM chunk_rows WHERE file_path = {r}.file_path{more})"


def _no_other(row: str, *, category: bool = False, other_than: str | None = None) -> str:
    """SQL true when no chunk row of `row`'s document (and category) but `other_than`'s id
    exists: the row is its document's first (insert) or last (delete). Seeks the
    (file_path, chunk_index) index; a document's chunks share a category, so the first
    entry looked at answers."""
    # `+category`: never the category index, whose entries for one category are thousands
    more = f" AND +category IS {row}.category" if category else ""
    if other_than is not None:
        more += f" AND id <> {other_than}.id"
    return _DOC_LEFT.format(r=row, more=more)


_BYTES = "length(CAST({r}.content AS BLOB))"
_MOVED = "(old.file_path IS NOT new.file_path OR old.category IS NOT new.category)"

DDL: tuple[str, ...] = (
    f"""
    CREATE TABLE IF NOT EXISTS {TABLE} (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        documents INTEGER NOT NULL,
        chunks INTEGER NOT NULL,
        content_bytes INTEGER NOT NULL,
        links INTEGER NOT NULL
    )
    """,
    f"""
    CREATE TABLE IF NOT EXISTS {CATEGORY_TABLE} (
        key TEXT PRIMARY KEY,
        documents INTEGER NOT NULL,
        chunks INTEGER NOT NULL
    ) WITHOUT ROWID
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS totals_ci AFTER INSERT ON chunk_rows BEGIN
        UPDATE {TABLE} SET chunks = chunks + 1,
            content_bytes = content_bytes + {_BYTES.format(r="new")},
            documents = documents + {_no_other("new", other_than="new")};
        INSERT INTO {CATEGORY_TABLE}(key, documents, chunks)
            VALUES ({_KEY.format(r="new")}, {_no_other("new", category=True, other_than="new")}, 1)
            ON CONFLICT(key) DO UPDATE SET documents = documents + excluded.documents,
            chunks = chunks + 1;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS totals_cd AFTER DELETE ON chunk_rows BEGIN
        UPDATE {TABLE} SET chunks = chunks - 1,
            content_bytes = content_bytes - {_BYTES.format(r="old")},
            documents = documents - {_no_other("old")};
        UPDATE {CATEGORY_TABLE} SET chunks = chunks - 1,
            documents = documents - {_no_other("old", category=True)}
            WHERE key = {_KEY.format(r="old")};
        DELETE FROM {CATEGORY_TABLE} WHERE key = {_KEY.format(r="old")} AND chunks <= 0;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS totals_cu AFTER UPDATE OF file_path, category, content
    ON chunk_rows BEGIN
        UPDATE {TABLE} SET
            content_bytes = content_bytes - {_BYTES.format(r="old")} + {_BYTES.format(r="new")},
            documents = documents + CASE WHEN old.file_path IS new.file_path THEN 0 ELSE
                {_no_other("new", other_than="new")} - {_no_other("old", other_than="new")} END;
        UPDATE {CATEGORY_TABLE} SET chunks = chunks - 1,
            documents = documents - {_no_other("old", category=True, other_than="new")}
            WHERE key = {_KEY.format(r="old")} AND {_MOVED};
        INSERT INTO {CATEGORY_TABLE}(key, documents, chunks)
            SELECT {_KEY.format(r="new")}, {_no_other("new", category=True, other_than="new")}, 1
            WHERE {_MOVED}
            ON CONFLICT(key) DO UPDATE SET documents = documents + excluded.documents,
            chunks = chunks + 1;
        DELETE FROM {CATEGORY_TABLE} WHERE key = {_KEY.format(r="old")} AND chunks <= 0;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS totals_li AFTER INSERT ON link_rows BEGIN
        UPDATE {TABLE} SET links = links + 1;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS totals_ld AFTER DELETE ON link_rows BEGIN
        UPDATE {TABLE} SET links = links - 1;
    END
    """,
)


class Totals(NamedTuple):
    """What the index holds, counted: the numbers `state()` reports."""

    documents: int
    chunks: int
    links: int
    content_bytes: int
    categories: list[tuple[str | None, int, int]]  # (category, documents, chunks)


def ensure(conn: sqlite3.Connection) -> None:
    """Create the totals and their triggers, counting the rows once if any was missing;
    call inside the write transaction (one catalogue lookup when all are there)."""
    have = {
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE name IN (?, ?, ?, ?, ?, ?, ?)",
            (TABLE, CATEGORY_TABLE, *_TRIGGERS),
        )
    }
    if len(have) == len(_TRIGGERS) + 2:
        return
    for trigger in _TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for statement in DDL:
        conn.execute(statement)
    recount(conn)


# A bulk insert's rows (store/chunks.py's BulkInsert) are counted by the writer as it
# inserts them (`Added`) and added at its end (`resume`), where the insert trigger counted
# them one by one. A trigger on every insert also gave each one a statement savepoint, at
# which FTS5 wrote out its pending terms: 0.12 s of the writer's 0.21 s of per-file work
# on the docs corpus's cold ingest. Without the writer's count (a batch whose ids were not
# as expected), the rows above the bulk's first id are counted in SQL: the same sums.
_NEW_DOCUMENT = (
    "NOT EXISTS (SELECT 1 FROM chunk_rows o WHERE o.file_path = r.file_path{more} AND o.id <= ?1)"
)
_ADD_NEW = f"""
    UPDATE {TABLE} SET
        chunks = chunks + (SELECT count(*) FROM chunk_rows WHERE id > ?1),
        content_bytes = content_bytes + (SELECT coalesce(sum({_BYTES.format(r="r")}), 0)
            FROM chunk_rows r WHERE r.id > ?1),
        documents = documents + (SELECT count(DISTINCT r.file_path) FROM chunk_rows r
            WHERE r.id > ?1 AND {_NEW_DOCUMENT.format(more="")})
"""
_ADD_NEW_CATEGORIES = f"""
    INSERT INTO {CATEGORY_TABLE}(key, documents, chunks)
        SELECT {_KEY.format(r="r")}, count(DISTINCT CASE WHEN
            {_NEW_DOCUMENT.format(more=" AND +o.category IS r.category")}
            THEN r.file_path END), count(*)
        FROM chunk_rows r WHERE r.id > ?1 GROUP BY r.category
        ON CONFLICT(key) DO UPDATE SET documents = documents + excluded.documents,
        chunks = chunks + excluded.chunks
"""
# Does the document (and its category) hold rows older than its new ones (id <= ?2)? What
# the trigger asks of a document's first new row: its later ones find that one.
_HELD_BEFORE = (
    "SELECT EXISTS (SELECT 1 FROM chunk_rows WHERE file_path = ?1 AND id <= ?2), "
    "EXISTS (SELECT 1 FROM chunk_rows WHERE file_path = ?1 AND +category IS ?3 AND id <= ?2)"
)
_ADD = (
    f"UPDATE {TABLE} SET chunks = chunks + ?, content_bytes = content_bytes + ?, "
    "documents = documents + ?"
)
_ADD_CATEGORY = (
    f"INSERT INTO {CATEGORY_TABLE}(key, documents, chunks) VALUES (?, ?, ?) "
    "ON CONFLICT(key) DO UPDATE SET documents = documents + excluded.documents, "
    "chunks = chunks + excluded.chunks"
)


class Added:
    """What a bulk insert's rows add to the totals, counted as they go in (`note`)."""

    __slots__ = ("categories", "chunks", "content_bytes", "documents")

    def __init__(self) -> None:
        self.chunks = self.content_bytes = self.documents = 0
        self.categories: dict[str, list[int]] = {}  # key -> [documents, chunks]

    def note(
        self,
        conn: sqlite3.Connection,
        path: str,
        category: str | None,
        contents: list[str],
        after_id: int,
    ) -> None:
        """Count the rows just inserted for `path` in one go (their ids follow `after_id`)."""
        if not contents:
            return
        held, held_in_category = conn.execute(_HELD_BEFORE, (path, after_id, category)).fetchone()
        self.chunks += len(contents)
        # the UTF-8 length SQLite stores; an ASCII string's is its length (a flag lookup)
        self.content_bytes += sum(len(c) if c.isascii() else len(c.encode()) for c in contents)
        self.documents += not held
        key = "" if category is None else "=" + category
        counts = self.categories.setdefault(key, [0, 0])
        counts[0] += not held_in_category
        counts[1] += len(contents)


def suspend(conn: sqlite3.Connection) -> bool:
    """Drop the chunks' insert trigger for a bulk insert; True when there was one, and the
    rows inserted from now on are to be counted by `resume`."""
    present = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?", (_TRIGGERS[0],)
    ).fetchone()
    if present is None:
        return False
    conn.execute(f"DROP TRIGGER {_TRIGGERS[0]}")
    return True


def resume(conn: sqlite3.Connection, after_id: int, added: Added | None = None) -> None:
    """Count the chunk rows above `after_id` (a bulk insert's) into the totals, as the
    insert trigger would have: `added`, the writer's count of them, or else in SQL; and
    restore the trigger."""
    if added is None:
        conn.execute(_ADD_NEW, (after_id,))
        conn.execute(_ADD_NEW_CATEGORIES, (after_id,))
    else:
        conn.execute(_ADD, (added.chunks, added.content_bytes, added.documents))
        conn.executemany(
            _ADD_CATEGORY, [(key, docs, n) for key, (docs, n) in added.categories.items()]
        )
    conn.execute(DDL[2])  # the totals_ci trigger's CREATE, as `ensure` makes it


def recount(conn: sqlite3.Connection) -> None:
    """Set the totals from the rows (inside the caller's write transaction)."""
    counted = count(conn)
    conn.execute(f"DELETE FROM {TABLE}")
    conn.execute(
        f"INSERT INTO {TABLE}(id, documents, chunks, content_bytes, links) VALUES (0, ?, ?, ?, ?)",
        (counted.documents, counted.chunks, counted.content_bytes, counted.links),
    )
    conn.execute(f"DELETE FROM {CATEGORY_TABLE}")
    conn.executemany(
        f"INSERT INTO {CATEGORY_TABLE}(key, documents, chunks) VALUES (?, ?, ?)",
        [("" if c is None else "=" + c, d, n) for c, d, n in counted.categories],
    )


def read(conn: sqlite3.Connection) -> Totals:
    """The totals as the writers kept them; counted from the rows when the index has none
    (made before them and not written since, or not writable)."""
    try:
        row = conn.execute(
            f"SELECT documents, chunks, links, content_bytes FROM {TABLE} WHERE id = 0"
        ).fetchone()
        if row is None:
            return count(conn)
        cats = conn.execute(f"SELECT key, documents, chunks FROM {CATEGORY_TABLE}").fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return count(conn)
    categories = [(None if k == "" else str(k)[1:], int(d), int(n)) for k, d, n in cats]
    return Totals(int(row[0]), int(row[1]), int(row[2]), int(row[3]), _ordered(categories))


def count(conn: sqlite3.Connection) -> Totals:
    """The totals counted from the rows: what `read` must always equal (reads every chunk)."""
    docs, chunks = conn.execute(
        "SELECT COUNT(DISTINCT file_path), COUNT(*) FROM chunk_rows"
    ).fetchone()
    (size,) = conn.execute(
        "SELECT COALESCE(SUM(length(CAST(content AS BLOB))), 0) FROM chunk_rows"
    ).fetchone()
    (links,) = conn.execute("SELECT COUNT(*) FROM link_rows").fetchone()
    rows = conn.execute(
        "SELECT category, COUNT(DISTINCT file_path), COUNT(*) FROM chunk_rows GROUP BY category"
    ).fetchall()
    categories = [(r[0], int(r[1]), int(r[2])) for r in rows]
    return Totals(int(docs), int(chunks), int(links), int(size), _ordered(categories))


def _ordered(categories: list[tuple[str | None, int, int]]) -> list[tuple[str | None, int, int]]:
    """Most documents first, then by name (None first, as SQLite orders NULL)."""
    return sorted(categories, key=lambda c: (-c[1], c[0] is not None, c[0] or ""))
