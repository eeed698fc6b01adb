"""Connections to the index database: readers, the writer, builds and transactions.

WAL journal, a busy timeout and one writer transaction per ingest: readers see the old
index or the new one, never a mix, and a crash mid-ingest leaves the previous index.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from contextlib import suppress
from pathlib import Path

from kenso_git.errors import DatabaseError
from kenso_git.errors import NoIndexError
from kenso_git.repo.safeopen import ensure_private_dir
from kenso_git.store import budget
from kenso_git.store import claim
from kenso_git.store import functions
from kenso_git.store import schema
from kenso_git.store import wal
from kenso_git.store.faults import database_failure
from kenso_git.store.faults import file_failure
from kenso_git.store.noindex import no_index_hint

# The page size of a new index. Chunk rows average ~1.3 KB (up to ~4 KB of text): SQLite's
# default 4 KB pages hold two or three and left 19% of their bytes unused on the docs corpus
# once the text was stored plain (#26); 16 KB pages leave 7% (index 22.1 -> 20.4 MB, 2.53x
# -> 2.35x the corpus), with no slower ingest or search. An index made before keeps its
# pages until `ingest --rebuild`.
PAGE_BYTES = 16384
READ_BUSY_MS = 5_000
WRITE_BUSY_MS = 60_000
# How long this process's writers wait in SQLite's busy handler: WRITE_BUSY_MS, or less for
# a git hook (set_write_wait), which a writer that skips the write lock (an old kenso-git,
# a sqlite3 shell) must not hold for a minute.
_write_wait_ms = WRITE_BUSY_MS


def no_index_error(db_path: Path) -> NoIndexError:
    """The error for an index file that is not there (yet, or any more)."""
    return NoIndexError(f"no search index at {db_path}", hint=no_index_hint(db_path))


def _bad_db(db_path: Path, err: sqlite3.Error) -> DatabaseError:
    return database_failure(db_path, err, waited_s=READ_BUSY_MS / 1000)


def _readonly_uri(db_path: Path) -> str:
    return wal.file_uri(db_path, "ro")


Identity = tuple[int, int]  # (st_dev, st_ino) of the database file
# How often a reader tries again when the index is replaced while it opens it.
_OPEN_ATTEMPTS = 20


class _Conn(sqlite3.Connection):
    """A connection of the index that knows how long it may wait for SQLite's locks."""

    busy_ms = READ_BUSY_MS  # outside a tool call; inside one, cut to what its budget has left


def _wait_within_call(conn: sqlite3.Connection) -> None:
    """Let `conn`'s SQLite busy wait last its own `busy_ms`, or less: no longer than the wall
    time the tool call on this thread has left (0 once it is spent), so a call meeting a
    lock another connection holds on the index answers within its budget. Set again before
    each read transaction, write transaction and `data_version`: a connection lives on from
    call to call, and outside a call it waits as long as it always has."""
    if not isinstance(conn, _Conn):
        return
    left = budget.wait_left(conn.busy_ms / 1000)
    conn.execute(f"PRAGMA busy_timeout={conn.busy_ms if left is None else int(left * 1000)}")


def file_identity(path: Path) -> Identity | None:
    """The identity of the file at `path` now (None when there is none)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def open_reader(db_path: Path) -> sqlite3.Connection:
    """A read-only connection in autocommit mode (`open_current_reader` without the identity).

    Raises:
        NoIndexError: the database file or its tables do not exist.
        DatabaseError: the file is corrupt or was written by a newer kenso-git.
    """
    return open_current_reader(db_path)[0]


def open_current_reader(
    db_path: Path,
    *,
    check: Callable[[sqlite3.Connection], None] | None = None,
    upgrade: bool = True,
) -> tuple[sqlite3.Connection, Identity]:
    """A read-only connection in autocommit mode, and the identity of the file it reads;
    `check` (the owner check) runs on it before an older schema is upgraded.

    SQLite opens the database file when it connects, but its `-wal` and `-shm` by name at
    the first read: an index replaced in between (`ingest --rebuild`, `rm -rf .kenso &&
    ingest`) would pair the old file with the new journal, a "disk I/O error" or worse.
    The file's identity is compared before and after: a connection that may straddle two
    indexes is closed and the new index opened instead.

    Raises:
        NoIndexError: the database file or its tables do not exist.
        DatabaseError: the file is corrupt or was written by a newer kenso-git.
    """
    conn, version, has_chunks, before = _open_one_file(db_path)
    try:
        # the version first: a newer schema may name its tables differently, and "run
        # ingest once" would be the wrong advice for it
        _check_version(db_path, version)
    except DatabaseError:
        conn.close()
        raise
    if not has_chunks:
        try:  # another program's database is not "no index yet": ingest would refuse it
            claim.check_claim(conn, db_path, version)
        finally:
            conn.close()
        raise NoIndexError(f"{db_path} holds no search index yet", hint=no_index_hint(db_path))
    if check is not None:
        try:
            check(conn)
        except sqlite3.DatabaseError as err:  # damaged pages where the root is recorded
            conn.close()
            raise _bad_db(db_path, err) from err
        except BaseException:
            conn.close()
            raise
    if upgrade and 0 < version < schema.SCHEMA_VERSION:
        # the readers' queries name this schema's tables (schema 4's `link_rows`): an index
        # an older kenso-git wrote is migrated first (once `check` allowed it), even when
        # no sync would write to it
        conn.close()
        _upgrade(db_path, version)
        return open_current_reader(db_path, check=check, upgrade=False)
    return conn, before


def version_reader(db_path: Path) -> sqlite3.Connection:
    """A read-only connection any thread may use (under its caller's lock) to ask `PRAGMA
    data_version` alone: it never waits for a lock (index.quiet).

    Raises:
        sqlite3.Error: the file cannot be opened.
    """
    conn = sqlite3.connect(
        wal.file_uri(db_path, "ro"), uri=True, isolation_level=None, check_same_thread=False
    )
    conn.execute("PRAGMA busy_timeout=0")
    return conn


def _open_one_file(db_path: Path) -> tuple[sqlite3.Connection, int, bool, Identity]:
    """A reader of one file (see `open_current_reader`): its version, whether it holds the
    chunks, and its identity."""
    waited = False
    for _ in range(_OPEN_ATTEMPTS):
        before = file_identity(db_path)
        if before is not None and not db_path.is_file():
            claim.check_file(db_path)  # a folder, a device: said so, not "run ingest once"
        if before is None or not db_path.is_file():
            if not waited:  # `ingest --rebuild` may be linking the new index right now
                from kenso_git.store.publish import wait_for_swap

                waited = True
                if wait_for_swap(db_path):
                    continue
            raise no_index_error(db_path)
        try:
            conn, version, has_chunks = _connect_reader(db_path)
        except sqlite3.DatabaseError as err:
            if file_identity(db_path) != before:
                continue  # replaced or removed while opening: look again
            raise _bad_db(db_path, err) from err
        if file_identity(db_path) != before:
            conn.close()
            continue
        return conn, version, has_chunks, before
    raise DatabaseError(
        f"the index was replaced {_OPEN_ATTEMPTS} times while this command opened it",
        path=str(db_path),
        hint="run the command again once the `ingest --rebuild` loop has ended",
    )


def _upgrade(db_path: Path, version: int) -> None:
    try:
        open_writer(db_path).close()
    except DatabaseError as err:
        raise DatabaseError(
            f"the index was written by an older kenso-git (schema {version}) and could not "
            f"be upgraded here: {err.message}",
            path=str(db_path),
            hint="run `kenso-git sync` once where the index is writable, "
            "or `kenso-git ingest --rebuild` to replace it",
        ) from err


def _connect_reader(db_path: Path) -> tuple[sqlite3.Connection, int, bool]:
    try:
        return _connect_reader_at(db_path, _readonly_uri(db_path))
    except sqlite3.OperationalError as err:
        if not wal.cannot_open(err) or os.access(db_path.parent, os.W_OK):
            raise
    # A read-only folder: WAL needs a -shm that cannot be created there (#26). An index
    # whose WAL is empty is all in its file, which no writer can change here: read it
    # immutable. One whose WAL still holds commits would be read without them.
    if wal.wal_bytes(db_path) > 0:
        raise DatabaseError(
            f"the index cannot be read: its folder is read-only and its -wal holds "
            f"commits not yet copied into {db_path.name}",
            path=str(db_path),
            hint=f"make {db_path.parent} writable and run any kenso-git command once "
            "(it empties the -wal), then it can be read-only again",
        )
    return _connect_reader_at(db_path, f"{_readonly_uri(db_path)}&immutable=1")


def _connect_reader_at(db_path: Path, uri: str) -> tuple[sqlite3.Connection, int, bool]:
    conn = sqlite3.connect(
        uri, uri=True, isolation_level=None, check_same_thread=False, factory=_Conn
    )
    try:
        conn.busy_ms = READ_BUSY_MS
        conn.row_factory = sqlite3.Row
        add_functions(conn)
        _wait_within_call(conn)
        budget.install(conn)  # a tool call's time budget stops its statements (#13)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_chunks = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name='chunks'"
        ).fetchone()
    except BaseException:
        conn.close()
        raise
    return conn, version, has_chunks is not None


def add_functions(conn: sqlite3.Connection) -> None:
    """The SQL function the schema's FTS triggers call (schema 5: expanded terms)."""
    functions.register(conn)


def _check_version(db_path: Path, version: int) -> None:
    if version > schema.SCHEMA_VERSION:
        raise DatabaseError(
            f"the index was written by a newer kenso-git (schema {version}, "
            f"this one reads {schema.SCHEMA_VERSION})",
            path=str(db_path),
            hint="upgrade kenso-git (pre-commit pins its own copy: bump `rev`), "
            "or run `kenso-git ingest --rebuild` to replace the index",
        )


def write_wait_ms() -> int:
    """How long this process's writers wait in SQLite's busy handler (milliseconds)."""
    return _write_wait_ms


def set_write_wait(seconds: float) -> None:
    """How long the writers this process opens from now on wait for SQLite's write lock."""
    global _write_wait_ms
    _write_wait_ms = max(0, int(seconds * 1000))


def open_writer(
    db_path: Path, *, fresh: bool = False, wait_ms: int | None = None
) -> sqlite3.Connection:
    """A connection that may write; creates the file and schema, migrates old ones.

    `fresh` is for a private, not yet published build file (created here): no journal, no
    syncs (`publish_build` makes it durable and switches it to WAL). Without it the index
    must exist: this never creates one. `wait_ms`: how long it waits for SQLite's locks
    (default `write_wait_ms`; 0 for a best-effort write that must never wait, `restat`).

    Raises:
        NoIndexError: not `fresh`, and there is no file at `db_path` (or it went meanwhile).
        DatabaseError: the file is not a usable SQLite database.
    """
    if fresh:
        try:
            ensure_private_dir(db_path.parent)  # 0700 whatever the umask (#27)
        except OSError as err:
            raise file_failure(db_path, err) from err
        _create_private(db_path)
    else:
        ensure_private_dir(db_path.parent, create=False)  # an older `.kenso/` of ours: 0700
    waits = _write_wait_ms if wait_ms is None else max(0, wait_ms)
    try:
        conn = sqlite3.connect(
            db_path if fresh else wal.file_uri(db_path, "rw"),
            uri=not fresh,
            isolation_level=None,
            check_same_thread=False,
            factory=_Conn,
        )
        conn.busy_ms = waits
        conn.row_factory = sqlite3.Row
        add_functions(conn)
        _wait_within_call(conn)
        # before the journal mode, which rewrites the file's header: another program's
        # database named by --db is left byte for byte as it was
        claim.check_claim(conn, db_path, conn.execute("PRAGMA user_version").fetchone()[0])
        if fresh:  # before the first table: free pages can be returned (wal.too_free)
            conn.execute(f"PRAGMA page_size={PAGE_BYTES}")
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        conn.execute(f"PRAGMA journal_mode={'OFF' if fresh else 'WAL'}")
        conn.execute(f"PRAGMA synchronous={'OFF' if fresh else 'NORMAL'}")
        if wal.deferred():
            conn.execute("PRAGMA wal_autocheckpoint=0")
        _ensure_schema(conn, db_path)
    except sqlite3.DatabaseError as err:
        if not fresh and not db_path.is_file():
            # removed since the caller looked (`rm -rf .kenso`): `mode=rw` never creates it,
            # which would give a sync an empty index to write its few changed files into
            raise no_index_error(db_path) from err
        raise database_failure(db_path, err, waited_s=waits / 1000) from err
    return conn


def _create_private(path: Path) -> None:
    """Create the file owner-only (0600) before SQLite would create it with the umask.

    The index holds the text of every indexed doc, some of which may be 0600; SQLite gives
    its -wal and -shm files the database's mode, so they stay private too.
    """
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except OSError:
        return  # it exists (kept as it is), or SQLite will report why it cannot be opened


def _ensure_schema(conn: sqlite3.Connection, db_path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == schema.SCHEMA_VERSION:
        _refresh_update_trigger(conn)
        return
    _check_version(db_path, version)
    with transaction(conn):
        # another process (a reader's `_upgrade`, a hook) may have migrated it meanwhile
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == schema.SCHEMA_VERSION:
            return
        if version == 0:
            _adopt_or_create(conn)
        else:
            for step in range(version, schema.SCHEMA_VERSION):
                for statement in schema.MIGRATIONS.get(step, ()):
                    conn.execute(statement)
                if step in (1, 2):
                    from kenso_git.store import migrate

                    (migrate.labels_once if step == 1 else migrate.labels_capped)(conn)
                if step == 3:
                    from kenso_git.store.migrate_links import normalize_links

                    normalize_links(conn)  # `links` must be a view for the next step's DDL
                if step == 4:
                    from kenso_git.store.migrate_content import plain_content

                    plain_content(conn)
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
    _wait_within_call(conn)
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield
    except BaseException:
        # SQLite has already rolled back after some errors (disk full, I/O): a second
        # ROLLBACK would fail and hide the real cause.
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def writing(conn: sqlite3.Connection, db_path: Path) -> Iterator[None]:
    """Turn SQLite failures during a write into errors naming the cause."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        raise database_failure(db_path, err, waited_s=_write_wait_ms / 1000) from err


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A read transaction: every SELECT inside sees the same committed index."""
    _wait_within_call(conn)
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        # SQLite has already ended the transaction after some errors (I/O, interrupt): a
        # COMMIT then fails with "no transaction is active" and hides the real cause.
        if conn.in_transaction:
            conn.execute("COMMIT")


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's `PRAGMA data_version`: changes when another connection commits."""
    _wait_within_call(conn)
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def schema_version(conn: sqlite3.Connection) -> int:
    """The index's schema version (`PRAGMA user_version`)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])
