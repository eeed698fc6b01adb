"""The index's WAL kept short across processes: emptied by writers, or by a detached child.

The first process to open the index rebuilds SQLite's WAL index and counts no frame as
copied yet. A WAL left long by the last process (its writer closed while its read-only
reader was still open, so nothing emptied it) was therefore copied into the database
again, with three fsyncs, by the next commit of every later process, and never restarted:
every git hook paid for it (at 30x, a 267 MB WAL), and the file counted in the index size.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from contextlib import suppress
from pathlib import Path

# Past this size a writer empties the WAL when it closes (SQLite's own autocheckpoint is
# 1,000 pages: about this many bytes).
WAL_RESET_BYTES = 4 * 1024 * 1024
_SETTLE_BUSY_MS = 2_000  # how long the detached child waits for a reader mid-query
# A git hook's writers leave the WAL to a detached child (`settle_detached`): git waits for
# the hook, not for the copy into the database.
_deferred = False

# Free pages (FTS segment merges, rewritten rows) are returned to the file system once they
# pass both bounds: at 30x, 27 hooked checkouts left 130 MB of a 934 MB file free. Only
# files made with auto_vacuum=INCREMENTAL (every new or rebuilt index) can return them.
FREE_SHARE = 0.10
FREE_BYTES = 1024 * 1024
_INCREMENTAL = 2  # PRAGMA auto_vacuum
_VACUUM_STEP = 2048  # pages a transaction: other writers get the lock in between
# A hook's writer that left too many free pages says so here, for settle_detached.
_vacuum_wanted = False

# The detached child: a bare interpreter (no site) that imports this module alone from
# the tree it is in and runs `settle_now`.
_SETTLE_CODE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from kenso_git.store.wal import settle_now\n"
    "settle_now(sys.argv[2], sys.argv[3])\n"
)


def file_uri(db_path: Path, mode: str) -> str:
    """A `file:` URI opening `db_path` in `mode` (ro, rw)."""
    # Built by hand: Path.as_uri() imports urllib (~4 ms on every `kenso-git search`).
    text = str(db_path.resolve())
    for char, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        text = text.replace(char, code)
    return f"file:{text}?mode={mode}"


_SQLITE_CANTOPEN = 14
_SQLITE_READONLY = 8


def cannot_open(err: sqlite3.Error) -> bool:
    """SQLite could not open the file or its -wal or -shm: "unable to open database file"
    (a read-only file system), or "attempt to write a readonly database" when the folder's
    mode forbids creating them (SQLITE_READONLY_DIRECTORY, and the other READONLY codes a
    -shm it may not write gives)."""
    code = getattr(err, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (_SQLITE_CANTOPEN, _SQLITE_READONLY)


def defer_checkpoints() -> None:
    """Writers this process opens from now on never copy the WAL into the database: a git
    hook calls this, then `settle_detached` once its write is done."""
    global _deferred
    _deferred = True


def deferred() -> bool:
    """Whether this process's writers leave checkpoints to `settle_detached`."""
    return _deferred


def wal_bytes(db_path: Path) -> int:
    """The size of the index's WAL file (0 when there is none)."""
    try:
        return os.stat(f"{db_path}-wal").st_size
    except OSError:
        return 0


def too_free(conn: sqlite3.Connection) -> bool:
    """Whether the index's free pages pass FREE_SHARE of the file and FREE_BYTES, in a file
    that can return them (auto_vacuum=INCREMENTAL)."""
    if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != _INCREMENTAL:
        return False
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    return bool(free * size > FREE_BYTES and free > pages * FREE_SHARE)


def vacuum(conn: sqlite3.Connection) -> None:
    """Return every free page to the file system, a step a transaction."""
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    while free:
        # fetchall: the pragma frees one page each time it is stepped
        conn.execute(f"PRAGMA incremental_vacuum({_VACUUM_STEP})").fetchall()
        left = conn.execute("PRAGMA freelist_count").fetchone()[0]
        if left >= free:  # not an incremental file: nothing can be returned
            return
        free = left


def close_writer(conn: sqlite3.Connection, db_path: Path) -> None:
    """Close a writer; too many free pages are first returned (`too_free`), and a WAL past
    WAL_RESET_BYTES copied into the database and emptied, so the next process starts with
    neither (unless checkpoints are deferred: then `settle_detached` does both)."""
    global _vacuum_wanted
    try:
        with suppress(sqlite3.Error):  # a closed or failed connection: nothing to return
            if too_free(conn):
                if _deferred:
                    _vacuum_wanted = True
                else:
                    conn.execute("PRAGMA busy_timeout=0")  # a reader mid-query: next time
                    vacuum(conn)
        if not _deferred and wal_bytes(db_path) > WAL_RESET_BYTES:
            # TRUNCATE copies what it can and leaves the WAL at 0 bytes; without waiting:
            # a reader mid-query (a server's) leaves the reset to the next writer, and the
            # writer that closes here may be a query's sync. The data is safe either way.
            with suppress(sqlite3.Error):
                conn.execute("PRAGMA busy_timeout=0")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def settle_detached(db_path: Path) -> int | None:
    """Empty a WAL past WAL_RESET_BYTES, and return the free pages a writer left past the
    bounds, in a detached process; its pid, or None when not needed (or it could not start:
    the next writer does both then).

    For a git hook whose writers deferred checkpoints: the hook exits at once and git goes
    on while the child copies the WAL. A new interpreter rather than a fork: it inherits
    no thread, no SQLite state and none of git's pipes (0-2 go to /dev/null).
    """
    if wal_bytes(db_path) <= WAL_RESET_BYTES and not _vacuum_wanted:
        return None
    tree = str(Path(__file__).resolve().parents[2])  # the folder kenso_git is in
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    try:
        return os.posix_spawn(
            sys.executable,
            [
                *(sys.executable, "-I", "-S", "-c", _SETTLE_CODE, tree),
                *(file_uri(db_path, "rw"), str(db_path)),
            ],
            {},
            file_actions=quiet,
            setsid=True,
        )
    except OSError:
        return None


def settle_now(uri: str, db_path: str | None = None) -> None:
    """The detached child's work: return the free pages past the bounds, then copy the WAL
    into the database and empty it (waiting a little for a reader mid-query). The file's
    stamp (store/stamp.py) is renewed when the file was as its writer left it."""
    from kenso_git.store import stamp

    as_left = db_path is not None and stamp.matches(db_path)
    conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout={_SETTLE_BUSY_MS}")
        with suppress(sqlite3.Error):  # busy: the next writer returns them
            if too_free(conn):
                vacuum(conn)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    if as_left and db_path is not None:
        stamp.record(db_path)
