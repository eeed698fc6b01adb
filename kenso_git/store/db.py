"""Connections to the index database and the writes the indexer makes.

WAL journal, a busy timeout and one writer transaction per ingest: readers see the old
index or the new one, never a mix, and a crash mid-ingest leaves the previous index.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from kenso_git.errors import DatabaseError
from kenso_git.errors import NoIndexError
from kenso_git.store import schema

READ_BUSY_MS = 5_000
WRITE_BUSY_MS = 60_000
_NO_INDEX_HINT = (
    "run `kenso-git ingest` once; `kenso-git hooks install` keeps it current after that"
)


class FileRow(NamedTuple):
    """What the index knows of one file (the `files` table). A named tuple: thousands are
    built per sync and sent between processes."""

    path: str
    blob_id: str
    status: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    seen_ns: int
    title: str | None = None
    category: str | None = None
    chunks: int = 0
    detail: str | None = None
    relations: str | None = None  # JSON [[raw_target, relation], ...]


class ChunkRow(NamedTuple):
    """One chunk ready to insert."""

    title: str
    section_path: str
    content: str
    search_extra: str | None  # searchable text beyond the content (labels, source, terms)
    doc_title: str | None


class LinkRow(NamedTuple):
    target_path: str
    relation_type: str
    raw_target: str


def _bad_db(db_path: Path, err: sqlite3.Error) -> DatabaseError:
    return DatabaseError(
        f"the index database cannot be read: {err}",
        path=str(db_path),
        hint="if it is corrupt, delete it and run `kenso-git ingest` to rebuild it",
    )


def _readonly_uri(db_path: Path) -> str:
    # Built by hand: Path.as_uri() imports urllib (~4 ms on every `kenso-git search`).
    text = str(db_path.resolve())
    for char, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        text = text.replace(char, code)
    return f"file:{text}?mode=ro"


def open_reader(db_path: Path) -> sqlite3.Connection:
    """A read-only connection in autocommit mode.

    Raises:
        NoIndexError: the database file or its tables do not exist.
        DatabaseError: the file is corrupt or was written by a newer kenso-git.
    """
    if not db_path.is_file():
        raise NoIndexError(f"no search index at {db_path}", hint=_NO_INDEX_HINT)
    try:
        conn = sqlite3.connect(
            _readonly_uri(db_path), uri=True, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={READ_BUSY_MS}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_chunks = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='chunks'"
        ).fetchone()
    except sqlite3.DatabaseError as err:
        raise _bad_db(db_path, err) from err
    if not has_chunks:
        conn.close()
        raise NoIndexError(f"{db_path} holds no search index yet", hint=_NO_INDEX_HINT)
    _check_version(db_path, version)
    return conn


def _check_version(db_path: Path, version: int) -> None:
    if version > schema.SCHEMA_VERSION:
        raise DatabaseError(
            f"the index was written by a newer kenso-git (schema {version}, "
            f"this one reads {schema.SCHEMA_VERSION})",
            path=str(db_path),
            hint="upgrade kenso-git (pre-commit pins its own copy: bump `rev`), "
            "or delete the index and re-ingest",
        )


def open_writer(db_path: Path, *, fresh: bool = False) -> sqlite3.Connection:
    """A connection that may write; creates the file and schema, migrates old ones.

    `fresh` is for a private, not yet published build file: no journal, no syncs
    (`publish_build` makes it durable and switches it to WAL).

    Raises:
        DatabaseError: the file is not a usable SQLite database.
    """
    db_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={WRITE_BUSY_MS}")
        conn.execute(f"PRAGMA journal_mode={'OFF' if fresh else 'WAL'}")
        conn.execute(f"PRAGMA synchronous={'OFF' if fresh else 'NORMAL'}")
        _ensure_schema(conn, db_path)
    except sqlite3.DatabaseError as err:
        raise _bad_db(db_path, err) from err
    return conn


BUILD_SUFFIX = ".building-"


def new_build_path(db_path: Path) -> Path:
    """A private file to build a new index in; leftovers of dead builds are removed."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    for stale in db_path.parent.glob(f"{db_path.name}{BUILD_SUFFIX}*"):
        pid = stale.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or not _alive(int(pid)):
            stale.unlink(missing_ok=True)
    return db_path.with_name(f"{db_path.name}{BUILD_SUFFIX}{os.getpid()}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def publish_build(conn: sqlite3.Connection, build: Path, db_path: Path) -> None:
    """Make a finished build durable, switch it to WAL and give it its public name.

    Raises:
        DatabaseError: another process published an index at `db_path` meanwhile.
    """
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    fd = os.open(build, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(build, db_path)  # never replaces: an index someone else made stays
    except FileExistsError:
        raise DatabaseError(
            "another kenso-git created the index while this one was building it",
            path=str(db_path),
            hint="run the command again: it will update that index",
        ) from None


def _ensure_schema(conn: sqlite3.Connection, db_path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == schema.SCHEMA_VERSION:
        _refresh_update_trigger(conn)
        return
    _check_version(db_path, version)
    with transaction(conn):
        if version == 0:
            _adopt_or_create(conn)
        else:
            for step in range(version, schema.SCHEMA_VERSION):
                for statement in schema.MIGRATIONS.get(step, ()):
                    conn.execute(statement)
        conn.execute(f"PRAGMA application_id={schema.APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={schema.SCHEMA_VERSION}")


def _refresh_update_trigger(conn: sqlite3.Connection) -> None:
    """Give an index made before 0.2 the update trigger that ignores non-indexed columns.

    Both forms are correct, and older kenso-git versions read and write either: the file
    format (the schema version) is unchanged. Only the cost of `write_chunks` differs.
    """
    ddl = schema.update_trigger_ddl()
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
        (schema.UPDATE_TRIGGER,),
    ).fetchone()
    if row is not None and " UPDATE OF " in row[0]:
        return
    with transaction(conn):
        conn.execute(f"DROP TRIGGER IF EXISTS {schema.UPDATE_TRIGGER}")
        conn.execute(ddl)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _adopt_or_create(conn: sqlite3.Connection) -> None:
    """Create the schema; a kenso 2.0.0 index in the same file is replaced (its rows are
    rebuilt by the ingest that opened this writer)."""
    tables = _tables(conn)
    if "chunks" in tables and "search_extra" not in _columns(conn, "chunks"):
        for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
            conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        for table in ("chunks_fts", "chunks", "links"):
            if table in tables:
                conn.execute(f"DROP TABLE {table}")
    for statement in schema.DDL:
        conn.execute(statement)


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


@contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Iterator[None]:
    """BEGIN (IMMEDIATE for writers) ... COMMIT, or ROLLBACK on any exception."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def writing(conn: sqlite3.Connection, db_path: Path) -> Iterator[None]:
    """Turn SQLite failures during a write into errors that say what to do."""
    try:
        yield
    except sqlite3.OperationalError as err:
        if "locked" in str(err) or "busy" in str(err):
            raise DatabaseError(
                f"the index is locked by another process (waited {WRITE_BUSY_MS // 1000} s)",
                path=str(db_path),
                hint="another kenso-git ingest or sync is running; try again when it ends",
            ) from err
        raise _bad_db(db_path, err) from err
    except sqlite3.DatabaseError as err:
        raise _bad_db(db_path, err) from err


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A read transaction: every SELECT inside sees the same committed index."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return {row[0]: row[1] for row in conn.execute("SELECT key, value FROM meta")}


def meta_scope(meta: dict[str, str]) -> list[str]:
    """The folders the index covers (`[""]`, the whole work tree, until an ingest narrows it)."""
    return list(json.loads(meta.get(schema.META_SCOPE, '[""]')))


def write_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(values.items()),
    )


def read_generation(conn: sqlite3.Connection) -> int:
    """A counter bumped by every committed write: caches keyed on it never go stale."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.META_GENERATION,)).fetchone()
    return int(row[0]) if row else 0


def bump_generation(conn: sqlite3.Connection) -> int:
    value = read_generation(conn) + 1
    write_meta(conn, {schema.META_GENERATION: str(value)})
    return value


def load_files(
    conn: sqlite3.Connection, paths: Collection[str] | None = None
) -> dict[str, FileRow]:
    """The files rows: all of them, or those of `paths`."""
    columns = (
        "SELECT path, blob_id, status, size, mtime_ns, ctime_ns, inode, seen_ns, title, "
        "category, chunks, detail, relations FROM files"
    )
    if paths is None:
        rows = conn.execute(columns).fetchall()
    else:
        rows = [
            row
            for path in sorted(set(paths))
            for row in conn.execute(f"{columns} WHERE path = ?", (path,))
        ]
    return {row[0]: FileRow(*row) for row in rows}


def upsert_file(conn: sqlite3.Connection, row: FileRow) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO files(path, blob_id, status, size, mtime_ns, ctime_ns, inode, "
        "seen_ns, title, category, chunks, detail, relations) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        row,
    )


def delete_file(conn: sqlite3.Connection, path: str) -> None:
    """Forget a file: its chunks, its outgoing links and its files row."""
    conn.execute("DELETE FROM chunks WHERE file_path = ?", (path,))
    conn.execute("DELETE FROM links WHERE source_path = ?", (path,))
    conn.execute("DELETE FROM files WHERE path = ?", (path,))


# The chunks columns a new version of a file may change, in one order for SELECT, INSERT
# and UPDATE (see _kept_values).
_KEPT: tuple[str, ...] = (
    "title",
    "section_path",
    "content",
    "search_extra",
    "category",
    "audience",
    "tags",
    "doc_title",
)
_KEPT_COLUMNS = ", ".join(_KEPT)
# New rows get their timestamps from Python, one per file, and '' for a missing tags list or
# document title (NULLIF stores NULL): binding a None costs the sqlite3 module an adapter
# lookup per value, and an SQL default a strftime() per row. Neither column is ever ''
# (`_kept_values` makes an empty one None).
_EMPTY_IS_NULL = ("tags", "doc_title")  # the last of _KEPT, in this order (see _insert_row)
assert _KEPT[-len(_EMPTY_IS_NULL) :] == _EMPTY_IS_NULL
_INSERT_CHUNK = (
    f"INSERT INTO chunks(file_path, chunk_index, {_KEPT_COLUMNS}, content_hash, created_at, "
    "updated_at) VALUES (?, ?, "
    + ", ".join("NULLIF(?, '')" if column in _EMPTY_IS_NULL else "?" for column in _KEPT)
    + ", ?, ?, ?)"
)
_UPDATE_CHUNK = (
    f"UPDATE chunks SET {', '.join(f'{column} = ?' for column in _KEPT)}, content_hash = ?, "
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
    """A chunk's values for the _KEPT_COLUMNS, in their order (an empty title is None)."""
    return (
        c.title,
        c.section_path,
        c.content,
        c.search_extra,
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
) -> None:
    """Make the chunks of `path` equal to `chunks`.

    A file new to the index (`replace=False`) just gets its rows. Otherwise only the rows
    that changed are rewritten: an edit usually changes one section of a document, and its
    other chunks keep their rows and full-text entries, which cost far more to delete and
    re-add than to compare.
    """
    tags_json = _tags_json(tags)
    stamp = _utc_stamp()
    if not replace:
        rows = [_kept_values(c, category, audience, tags_json) for c in chunks]
        conn.executemany(
            _INSERT_CHUNK,
            [_insert_row(path, index, v, content_hash, stamp) for index, v in enumerate(rows)],
        )
        if bulk is not None:
            bulk.add(rows)
        return
    have = {
        row[1]: (row[0], tuple(row)[2:])
        for row in conn.execute(
            f"SELECT id, chunk_index, {_KEPT_COLUMNS} FROM chunks WHERE file_path = ?", (path,)
        )
    }
    updates: list[tuple[object, ...]] = []
    inserts: list[tuple[object, ...]] = []
    added: list[KeptValues] = []
    for index, c in enumerate(chunks):
        values = _kept_values(c, category, audience, tags_json)
        old = have.pop(index, None)
        if old is None:
            inserts.append(_insert_row(path, index, values, content_hash, stamp))
            added.append(values)
        elif old[1] != values:
            updates.append((*values, content_hash, stamp, old[0]))
    gone = [(row_id,) for row_id, _ in have.values()]
    conn.executemany("DELETE FROM chunks WHERE id = ?", gone)
    conn.executemany(_UPDATE_CHUNK, updates)
    conn.executemany(_INSERT_CHUNK, inserts)
    if bulk is not None:
        bulk.add(added)
    # The rows kept as they were belong to the new version of the file too.
    conn.execute(
        "UPDATE chunks SET content_hash = ? WHERE file_path = ? AND content_hash IS NOT ?",
        (content_hash, path, content_hash),
    )


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
    `chunks_search` view, costs the writer ~12% fewer instructions on a cold ingest. The
    values come from `schema.fts_values`, the view's own rules, and go in under the ids
    SQLite gave the rows: a batch whose ids do not match (they always should) is indexed
    through the view instead. Lives inside the caller's transaction: readers never see
    the trigger missing.
    """

    __slots__ = ("conn", "indexed_to", "last_id", "pending")

    def __init__(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"DROP TRIGGER IF EXISTS {schema.INSERT_TRIGGER}")
        _fts_config(conn, "hashsize", FTS_HASH_BYTES)
        _fts_config(conn, "automerge", BULK_AUTOMERGE)
        # AUTOINCREMENT gives a new row max(sequence, highest id) + 1
        row = conn.execute(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'chunks'), 0), "
            "coalesce((SELECT max(id) FROM chunks), 0))"
        ).fetchone()
        self.conn = conn
        self.indexed_to = self.last_id = int(row[0])
        self.pending: list[tuple[object, ...]] = []

    def add(self, rows: Iterable[KeptValues]) -> None:
        """Note the full-text values of rows just inserted (their `_kept_values`), in
        insertion order."""
        for title, section_path, content, extra, category, _audience, tags, doc_title in rows:
            self.last_id += 1
            self.pending.append(
                (
                    self.last_id,
                    *schema.fts_values(
                        title, doc_title, section_path, tags, category, content, extra
                    ),
                )
            )

    def flush(self) -> None:
        """Write the full-text entries of the rows added since the last flush."""
        conn, first = self.conn, self.indexed_to
        high, count = conn.execute(
            "SELECT max(id), count(*) FROM chunks WHERE id > ?", (first,)
        ).fetchone()
        if (high or first) == self.last_id and count == len(self.pending):
            conn.executemany(
                f"INSERT INTO chunks_fts({schema.FTS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                self.pending,
            )
        else:  # ids not as expected: index exactly what the table holds
            conn.execute(
                f"INSERT INTO chunks_fts({schema.FTS_COLUMNS}) "
                f"SELECT {schema.FTS_COLUMNS.replace('rowid', 'id')} "
                "FROM chunks_search WHERE id > ?",
                (first,),
            )
            self.last_id = max(self.last_id, int(high or first))
        self.indexed_to = self.last_id
        self.pending.clear()

    def end(self) -> None:
        """Index what is left and restore the insert trigger and the merge policy."""
        self.flush()
        _fts_config(self.conn, "automerge", DEFAULT_AUTOMERGE)
        self.conn.execute(schema.insert_trigger_ddl())


def _fts_config(conn: sqlite3.Connection, key: str, value: int) -> None:
    """Set an FTS5 option of the index (kept in its config table)."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES (?, ?)", (key, value))


def replace_links(conn: sqlite3.Connection, source: str, links: Iterable[LinkRow]) -> None:
    conn.execute("DELETE FROM links WHERE source_path = ?", (source,))
    conn.executemany(
        "INSERT OR IGNORE INTO links(source_path, target_path, relation_type, raw_target) "
        "VALUES (?, ?, ?, ?)",
        [(source, link.target_path, link.relation_type, link.raw_target) for link in links],
    )


def stored_relations(
    conn: sqlite3.Connection, paths: Collection[str] | None = None
) -> list[tuple[str, str]]:
    """(path, relations JSON) of indexed files with relations (all, or those of `paths`)."""
    rows = conn.execute(
        "SELECT path, relations FROM files WHERE status = ? AND relations IS NOT NULL "
        "ORDER BY path",
        (schema.INDEXED,),
    ).fetchall()
    wanted = None if paths is None else set(paths)
    return [(r[0], r[1]) for r in rows if wanted is None or r[0] in wanted]


def clear_links(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM links")
