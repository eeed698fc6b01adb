"""Chunk rows, their document's labels and the FTS5 index: row-by-row writes and the bulk
path."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.store import schema
from kenso_git.store import totals
from kenso_git.store import trigram


class ChunkRow(NamedTuple):
    """One chunk ready to insert."""

    title: str
    section_path: str
    content: str
    search_extra: str | None  # searchable text of this chunk alone, after its document's labels
    doc_title: str | None
    # True: `search_extra` is the content's expanded line (text.terms.expanded_line), which
    # the index makes again from the content (schema.TERMS_OF): it is not stored
    expanded: bool = False


def _own(row: ChunkRow) -> str | None:
    """The row's `search_extra` as stored."""
    return None if row.expanded else row.search_extra


# The chunks columns a new version of a file may change (all but its identity, hash and
# timestamps), in one order for SELECT, INSERT and UPDATE (see _kept_values).
_FIXED = ("id", "file_path", "chunk_index", "content_hash", "created_at", "updated_at")
_KEPT: tuple[str, ...] = tuple(c for c in schema.CHUNK_COLUMNS if c not in _FIXED)
_KEPT_COLUMNS = ", ".join(_KEPT)
# New rows get their timestamps from Python, one per file, and '' for a missing tags list or
# document title (NULLIF stores NULL): binding a None costs the sqlite3 module an adapter
# lookup per value, and an SQL default a strftime() per row. Neither column is ever ''
# (`_kept_values` makes an empty one None).
_EMPTY_IS_NULL = ("tags", "doc_title")  # the last of _KEPT, in this order (see _insert_row)
assert _KEPT[-len(_EMPTY_IS_NULL) :] == _EMPTY_IS_NULL
_INSERT_CHUNK = (
    f"INSERT INTO chunk_rows(file_path, chunk_index, {_KEPT_COLUMNS}, content_hash, created_at, "
    "updated_at) VALUES (?, ?, "
    + ", ".join("NULLIF(?, '')" if column in _EMPTY_IS_NULL else "?" for column in _KEPT)
    + ", ?, ?, ?)"
)
_UPDATE_CHUNK = (
    f"UPDATE chunk_rows SET {', '.join(f'{column} = ?' for column in _KEPT)}, content_hash = ?, "
    "updated_at = ? WHERE id = ?"
)


def _utc_stamp() -> str:
    """Now as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', 'now') writes it."""
    now = time.time()
    millis = int(now * 1000) % 1000
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(now))}.{millis:03d}Z"


def _tags_json(tags: Sequence[str]) -> str | None:
    return json.dumps(list(tags), ensure_ascii=False) if tags else None


# A chunk's values for the _KEPT columns: title, section_path, content, search_extra,
# category, audience, tags (JSON), doc_title.
KeptValues = tuple[str, str, str, str | None, str, str, str | None, str | None]


def _kept_values(c: ChunkRow, category: str, audience: str, tags_json: str | None) -> KeptValues:
    """A chunk's values for the _KEPT_COLUMNS as stored, in their order (an empty title is
    None)."""
    return (
        c.title,
        c.section_path,
        c.content,
        _own(c),
        category,
        audience,
        tags_json,
        c.doc_title or None,
    )


def _insert_row(
    path: str, index: int, values: KeptValues, content_hash: str, stamp: str
) -> tuple[object, ...]:
    """A new chunk's parameters for _INSERT_CHUNK, from its _kept_values."""
    title, section_path, content, extra, category, audience, tags, doc_title = values
    return (
        path,
        index,
        title,
        section_path,
        content,
        extra,
        category,
        audience,
        tags or "",
        doc_title or "",
        content_hash,
        stamp,
        stamp,
    )


def write_chunks(
    conn: sqlite3.Connection,
    path: str,
    chunks: Sequence[ChunkRow],
    category: str,
    audience: str,
    tags: Sequence[str],
    content_hash: str,
    *,
    replace: bool,
    bulk: BulkInsert | None = None,
    labels: str | None = None,
) -> None:
    """Make the chunks of `path` equal to `chunks`, under the document labels `labels`
    (the search extra every chunk starts with) and `tags`, stored once in `documents`.

    A file new to the index (`replace=False`) just gets its rows. Otherwise only the rows
    that changed are rewritten: an edit usually changes one section of a document, and its
    other chunks keep their rows and full-text entries, which cost far more to delete and
    re-add than to compare. New labels are in every chunk's entries: all are rewritten.
    """
    label_row = (_tags_json(tags), labels)
    stamp = _utc_stamp()
    if replace:
        old = conn.execute("SELECT tags, labels FROM documents WHERE path = ?", (path,)).fetchone()
        if old is None or tuple(old) != label_row:
            # the FTS entries are deleted under the labels they were made with
            conn.execute("DELETE FROM chunk_rows WHERE file_path = ?", (path,))
            replace = False
    if not replace:
        conn.execute(
            "INSERT OR REPLACE INTO documents(path, tags, labels, tags_head, labels_head) "
            "VALUES (?, ?, ?, ?, ?)",
            (path, *label_row, *map(schema.label_head, label_row)),
        )
        local = BulkInsert(conn) if bulk is None and len(chunks) >= LOCAL_BULK_FROM else None
        rows = [_kept_values(c, category, audience, None) for c in chunks]
        conn.executemany(
            _INSERT_CHUNK,
            [_insert_row(path, index, v, content_hash, stamp) for index, v in enumerate(rows)],
        )
        batch = bulk if bulk is not None else local
        if batch is not None:
            batch.add(path, enumerate(chunks), category, *label_row)
        if local is not None:
            local.end()
        return
    have = {
        row[1]: (row[0], tuple(row)[2:])
        for row in conn.execute(
            f"SELECT id, chunk_index, {_KEPT_COLUMNS} FROM chunk_rows WHERE file_path = ?",
            (path,),
        )
    }
    updates: list[tuple[object, ...]] = []
    inserts: list[tuple[object, ...]] = []
    added: list[tuple[int, ChunkRow]] = []
    for index, c in enumerate(chunks):
        values = _kept_values(c, category, audience, None)
        old = have.pop(index, None)
        if old is None:
            inserts.append(_insert_row(path, index, values, content_hash, stamp))
            added.append((index, c))
        elif old[1] != values:
            updates.append((*values, content_hash, stamp, old[0]))
    gone = [(row_id,) for row_id, _ in have.values()]
    conn.executemany("DELETE FROM chunk_rows WHERE id = ?", gone)
    conn.executemany(_UPDATE_CHUNK, updates)
    conn.executemany(_INSERT_CHUNK, inserts)
    if bulk is not None:
        bulk.add(path, added, category, *label_row)
    # The rows kept as they were belong to the new version of the file too.
    conn.execute(
        "UPDATE chunk_rows SET content_hash = ? WHERE file_path = ? AND content_hash IS NOT ?",
        (content_hash, path, content_hash),
    )


# A new file of this many chunks is indexed like a bulk run even alone: the insert trigger
# costs ~3.5x the CPU of the batched FTS insert (55k chunks of a 1.9 MB file: 2.9 s -> 0.8 s).
LOCAL_BULK_FROM = 256

# FTS5 keeps new entries in memory and writes them out as a segment each time they reach
# `hashsize` bytes (1 MB by default); segments are then merged, four at a time, level by
# level. A 2 MB buffer writes half as many segments and so merges less: on the docs-desktop
# corpus the writer ran 12% fewer instructions (2.5% on 2x and 3x copies, the same on
# halves), for ~1.5 MB more peak memory. Stored in the index's FTS config.
FTS_HASH_BYTES = 2 << 20
# Bulk writes also merge 16 segments at a time instead of 4, so each entry is rewritten
# about half as often: 14% fewer writer instructions on ten copies of the corpus (none at
# one copy, where no merge happens), for ~3% more search work at that size. The default
# is restored for later writes, which then merge the index down gradually.
BULK_AUTOMERGE = 16
DEFAULT_AUTOMERGE = 4  # FTS5's own


class BulkInsert:
    """Many new chunk rows: the insert trigger is off, and their full-text entries are
    written in batches (`flush`) from the values the writer already holds.

    Feeding the FTS index those values, not reading each new row back through the
    triggers' SQL, costs the writer ~12% fewer instructions on a cold ingest. The
    values come from `schema.fts_values`, the triggers' own rules, and go in under the ids
    SQLite gave the rows: a batch whose ids do not match (they always should) is indexed
    from the rows instead (`schema.FTS_SOURCE`). Lives inside the caller's transaction:
    readers never see the trigger missing.
    """

    __slots__ = (
        "added",
        "cjk",
        "cjk_ids",
        "conn",
        "counted",
        "first",
        "indexed_to",
        "last_id",
        "pending",
    )

    def __init__(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"DROP TRIGGER IF EXISTS {schema.INSERT_TRIGGER}")
        self.cjk = trigram.suspend(conn)  # the CJK side index's trigger too (#18)
        self.counted = totals.suspend(conn)  # and the totals': counted at the end
        _fts_config(conn, "hashsize", FTS_HASH_BYTES)
        _fts_config(conn, "automerge", BULK_AUTOMERGE)
        # AUTOINCREMENT gives a new row max(sequence, highest id) + 1
        row = conn.execute(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'chunk_rows'), 0), "
            "coalesce((SELECT max(id) FROM chunk_rows), 0))"
        ).fetchone()
        self.conn = conn
        self.first = self.indexed_to = self.last_id = int(row[0])
        self.pending: list[tuple[object, ...]] = []
        # the new rows holding CJK text, tested here on the plain text (None: test in SQL)
        self.cjk_ids: list[int] | None = [] if self.cjk else None
        # what the new rows add to the totals, counted here (None: counted in SQL at the end)
        self.added = totals.Added() if self.counted else None

    def add(
        self,
        path: str,
        rows: Iterable[tuple[int, ChunkRow]],
        category: str,
        doc_tags: str | None,
        doc_labels: str | None,
    ) -> None:
        """Note the full-text values of the rows just inserted for `path` (chunk index,
        row; all its new rows, in insertion order) under their document's tags and labels
        (what the triggers would index), and what they add to the totals."""
        heads = schema.label_head(doc_tags), schema.label_head(doc_labels)
        rows = list(rows)
        if self.added is not None:
            contents = [c.content for _, c in rows]
            self.added.note(self.conn, path, category, contents, self.last_id)
        for index, c in rows:
            self.last_id += 1
            tags = schema.indexed_labels(doc_tags, heads[0], index)
            labels = schema.indexed_labels(doc_labels, heads[1], index)
            own = _indexed_own(c)
            if self.cjk_ids is not None and trigram.text_has_cjk(
                c.title, c.doc_title, c.section_path, c.content
            ):
                self.cjk_ids.append(self.last_id)
            extra = own if labels is None else labels if own is None else f"{labels}\n\n{own}"
            self.pending.append(
                (
                    self.last_id,
                    *schema.fts_values(
                        c.title,
                        c.doc_title or None,
                        c.section_path,
                        tags,
                        category,
                        c.content,
                        extra,
                    ),
                )
            )

    def flush(self) -> None:
        """Write the full-text entries of the rows added since the last flush."""
        conn, first = self.conn, self.indexed_to
        high, count = conn.execute(
            "SELECT max(id), count(*) FROM chunk_rows WHERE id > ?", (first,)
        ).fetchone()
        if (high or first) == self.last_id and count == len(self.pending):
            conn.executemany(
                f"INSERT INTO chunks_fts({schema.FTS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                self.pending,
            )
        else:  # ids not as expected: index exactly what the table holds
            conn.execute(
                f"INSERT INTO chunks_fts({schema.FTS_COLUMNS}) {schema.FTS_SOURCE} WHERE r.id > ?",
                (first,),
            )
            self.last_id = max(self.last_id, int(high or first))
            self.cjk_ids = None
            self.added = None
        self.indexed_to = self.last_id
        self.pending.clear()

    def end(self) -> None:
        """Index what is left and restore the insert trigger and the merge policy."""
        self.flush()
        _fts_config(self.conn, "automerge", DEFAULT_AUTOMERGE)
        self.conn.execute(schema.insert_trigger_ddl())
        if self.cjk:
            trigram.resume(self.conn, self.first, self.cjk_ids)
        if self.counted:
            totals.resume(self.conn, self.first, self.added)


def _fts_config(conn: sqlite3.Connection, key: str, value: int) -> None:
    """Set an FTS5 option of the index (kept in its config table)."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES (?, ?)", (key, value))


def _indexed_own(row: ChunkRow) -> str | None:
    """The row's own last part as the triggers index it: stored, or else the expanded line
    `kenso_terms` makes from its content (a row not from the parsing workers may lack it)."""
    if row.expanded or row.search_extra is not None:
        return row.search_extra
    from kenso_git.text.terms import expanded_line

    return expanded_line(row.content)
