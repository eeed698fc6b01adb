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

# The detached child: a bare interpreter (no site, no kenso_git) that empties the WAL. It
# opens the file `mode=rw`: an index deleted meanwhile is not created again, empty.
_SETTLE_CODE = (
    "import sqlite3, sys\n"
    "conn = sqlite3.connect(sys.argv[1], uri=True, isolation_level=None)\n"
    f"conn.execute('PRAGMA busy_timeout={_SETTLE_BUSY_MS}')\n"
    "conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
    "conn.close()\n"
)


def file_uri(db_path: Path, mode: str) -> str:
    """A `file:` URI opening `db_path` in `mode` (ro, rw)."""
    # Built by hand: Path.as_uri() imports urllib (~4 ms on every `kenso-git search`).
    text = str(db_path.resolve())
    for char, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        text = text.replace(char, code)
    return f"file:{text}?mode={mode}"


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


def close_writer(conn: sqlite3.Connection, db_path: Path) -> None:
    """Close a writer; a WAL past WAL_RESET_BYTES is first copied into the database and
    emptied (unless checkpoints are deferred), so the next process starts with none."""
    try:
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
    """Empty a WAL past WAL_RESET_BYTES in a detached process; its pid, or None when not
    needed (or it could not start: the next writer empties the WAL then).

    For a git hook whose writers deferred checkpoints: the hook exits at once and git goes
    on while the child copies the WAL. A new interpreter rather than a fork: it inherits
    no thread, no SQLite state and none of git's pipes (0-2 go to /dev/null).
    """
    if wal_bytes(db_path) <= WAL_RESET_BYTES:
        return None
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    try:
        return os.posix_spawn(
            sys.executable,
            [sys.executable, "-I", "-S", "-c", _SETTLE_CODE, file_uri(db_path, "rw")],
            {},
            file_actions=quiet,
            setsid=True,
        )
    except OSError:
        return None
