"""Name the real cause of a failed index read or write: disk full, read-only, locked, corrupt.

SQLite reports most causes through its result code; the message alone ("disk I/O error",
"database disk image is malformed") does not say what the user should do next.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from kenso_git.errors import DISK_FULL_ERRNOS
from kenso_git.errors import READ_ONLY_ERRNOS
from kenso_git.errors import CorruptIndexError
from kenso_git.errors import DatabaseError
from kenso_git.errors import IndexLockedError
from kenso_git.errors import IndexWriteError
from kenso_git.store import budget

REBUILD_HINT = (
    "run `kenso-git ingest --rebuild`: it builds a new index and replaces the file "
    "with its -wal and -shm"
)
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR = 5, 6, 8, 10
_SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 13, 14, 26
_LOW_SPACE = 16 * 1024 * 1024  # bytes free below which an I/O error is taken for a full disk
_SPENT_S = 0.05  # a call with less wall time left than this waited until its budget ran out


def _full(db_path: Path, detail: str) -> IndexWriteError:
    return IndexWriteError(
        f"the disk is full or a file-size limit was reached ({detail})",
        path=str(db_path),
        hint="free some disk space (or raise the limit) and run the command again; "
        "the index is as it was before this write",
    )


def _read_only(db_path: Path, detail: str) -> IndexWriteError:
    return IndexWriteError(
        f"the index cannot be written: its folder or file is read-only ({detail})",
        path=str(db_path),
        hint=f"make {db_path.parent} writable (reads answer from the index as it is "
        "meanwhile); `ingest --db PATH` would build a new index elsewhere, not update this one",
    )


def _locked(db_path: Path, waited_s: float) -> IndexLockedError:
    left = budget.wait_left(None)  # None outside a tool call
    if left is not None and waited_s > 0 and left < _SPENT_S:
        # the connection waited no longer than the call's budget had left (connection.py)
        waited = "until the call's time budget ran out"
    else:
        waited = f"{waited_s:.0f} s"
    return IndexLockedError(
        f"the index is locked by another process (waited {waited})",
        path=str(db_path),
        hint="another kenso-git ingest or sync is running; try again when it ends",
    )


def database_failure(db_path: Path, err: sqlite3.Error, *, waited_s: float = 0) -> DatabaseError:
    """The `DatabaseError` subclass that names why SQLite failed on `db_path`."""
    code = getattr(err, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(err)
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text or "busy" in text:
        return _locked(db_path, waited_s)
    if primary == _SQLITE_FULL:
        return _full(db_path, text)
    if primary == _SQLITE_READONLY:
        return _read_only(db_path, text)
    if primary == _SQLITE_CANTOPEN:
        return IndexWriteError(
            f"the index file cannot be opened ({text})",
            path=str(db_path),
            hint=f"check that {db_path.parent} exists and is readable and writable",
        )
    if primary == _SQLITE_IOERR:
        cause = _write_limit(db_path)
        if cause is not None:
            return _full(db_path, f"{cause}; SQLite said: {text}")
        return IndexWriteError(
            f"a disk read or write of the index failed ({text})",
            path=str(db_path),
            hint="check the disk (space, file-size limit, errors in the system log) and run "
            "the command again",
        )
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or "malformed" in text:
        from kenso_git.store.claim import not_sqlite  # this error's path only

        foreign = not_sqlite(db_path)  # a document named by --db: never "rebuild" it
        if foreign is not None:
            return foreign
        from kenso_git.store import stamp

        stamp.note_damage(db_path, text)  # health_check and stats name it too
        return CorruptIndexError(
            f"the index database is corrupt ({text})", path=str(db_path), hint=REBUILD_HINT
        )
    return DatabaseError(
        f"the index database cannot be used: {text}",
        path=str(db_path),
        hint=f"if this persists, {REBUILD_HINT[0].lower()}{REBUILD_HINT[1:]}",
    )


def _write_limit(db_path: Path) -> str | None:
    """Why a write may have failed that SQLite calls an I/O error: a full disk, or a
    file-size limit (`ulimit -f`, which gives EFBIG). None when neither applies."""
    import resource  # only on this error path

    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if soft != resource.RLIM_INFINITY:
        return f"the file-size limit (ulimit -f) is {soft} bytes"
    try:
        stats = os.statvfs(db_path.parent)
    except OSError:
        return None
    free = stats.f_bavail * stats.f_frsize
    return f"{free} bytes free on the disk" if free < _LOW_SPACE else None


def file_failure(path: Path, err: OSError) -> DatabaseError:
    """A failed file-system operation beside the index (lock, build file, publish), named."""
    detail = f"{err.strerror or err}: {err.filename or path}"
    if err.errno in DISK_FULL_ERRNOS:
        return _full(path, detail)
    if err.errno in READ_ONLY_ERRNOS:
        return _read_only(path, detail)
    return IndexWriteError(f"a file operation on the index failed ({detail})", path=str(path))
