"""A doc written again with the same bytes (`sed -i` that matched nothing, an editor's atomic
save, a checkout that rewrote it): `git status` lists no such file, so no query-time check
syncs it, and its row keeps the old inode, which the scope gate's same-file check
(`api.core`) compares. `rewritten_same` vets the new file by its bytes, and `restat`
records its stat data on the row, as `git update-index --refresh` does.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from kenso_git.repo.status import FileStatus
from kenso_git.store.files import load_files

if TYPE_CHECKING:
    from pathlib import Path

    from kenso_git.store.files import FileRow


Key = tuple[int, int, int, int]  # stat data as a files row keeps it: size, mtime, ctime, inode


def _key(st: os.stat_result) -> Key:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def rewritten_same(
    root: Path | str, rel: str, st: os.stat_result, row: FileRow | None
) -> Key | None:
    """The stat data of the file `st` describes (size, mtime, ctime, inode) when it holds
    the bytes the indexed `row` of `rel` was read from though its stat data is another:
    the doc was written again with the same bytes (`sed -i` that matched nothing, an
    editor's atomic save, a checkout or merge that rewrote it). `git status` lists no such
    file, so no sync looks at it and its row keeps the old inode. None when it is not so.

    Only the file `st` names is read, once, linear in its size: it is opened at `rel`
    with no symbolic link followed (`safeopen.open_beneath`: a link swapped in fails the
    open, a FIFO or device is never waited on), and its device and inode are checked once
    it is open (another file swapped in meanwhile is never read); a file written while it
    is read, or holding other bytes, is None.
    """
    from kenso_git.repo.git import is_indexed_bytes
    from kenso_git.repo.safeopen import open_beneath
    from kenso_git.repo.safeopen import read_capped

    if row is None or row.status != FileStatus.INDEXED or not row.blob_id:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size != row.size:
        return None  # other bytes for certain, or no file the index reads
    try:
        # at the path the gate approved, no link followed on the way, a FIFO or a device
        # swapped in since never waited on or read (`safeopen`)
        fd = open_beneath(str(root), rel)
    except OSError:
        return None
    try:
        before = os.fstat(fd)
        if (before.st_dev, before.st_ino) != (st.st_dev, st.st_ino):
            return None  # not the file the caller vetted
        data = read_capped(fd, before.st_size, row.size + 1)
        after = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    key = _key(before)
    if key != _key(after) or len(data) != row.size:
        return None  # written while it was read
    return key if is_indexed_bytes(root, rel, data, row.blob_id) else None


def restat(db_path: Path, row: FileRow, key: Key, seen_ns: int) -> bool:
    """Record stat data `key`, read at `seen_ns`, on `row` (bytes unchanged: see
    `rewritten_same`), as `git update-index --refresh` does: later checks then trust the
    stat data again instead of reading the file. Only while the row is still `row`, and
    only when no other writer holds the write lock (that one is not waited for: the
    caller is a read, and its call's budget is no place to wait): neither the kenso lock
    nor SQLite's is waited for, so the detached WAL settler (`wal.settle_now`), which
    writes without the kenso lock, makes it skip rather than wait. False when nothing was
    written (locked, read-only, changed)."""
    import sqlite3

    from kenso_git.errors import KensoError
    from kenso_git.index.lock import LOCK_FILE
    from kenso_git.index.lock import release
    from kenso_git.index.lock import try_lock
    from kenso_git.store import stamp
    from kenso_git.store.connection import open_writer
    from kenso_git.store.connection import transaction
    from kenso_git.store.files import upsert_file

    try:
        fd = try_lock(db_path.parent / LOCK_FILE)
    except KensoError:
        return False
    if fd is None:
        return False
    try:
        verified = stamp.matches(db_path)  # the file as a writer left it: keep it so
        conn = open_writer(db_path, wait_ms=0)  # SQLITE_BUSY: skipped, never waited for
        try:
            with transaction(conn):
                if load_files(conn, [row.path]).get(row.path) != row:
                    return False  # a sync wrote it meanwhile: its word stands
                size, mtime_ns, ctime_ns, inode = key
                upsert_file(
                    conn,
                    row._replace(
                        size=size,
                        mtime_ns=mtime_ns,
                        ctime_ns=ctime_ns,
                        inode=inode,
                        seen_ns=seen_ns,
                    ),
                )
        finally:
            conn.close()
        if verified:
            stamp.record(db_path)
    except (KensoError, sqlite3.Error):
        return False
    finally:
        release(fd)
    return True
