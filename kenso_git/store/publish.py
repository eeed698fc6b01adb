"""Publishing a finished build: a new index takes its public name, or replaces the old one.

A build is written in a private file (`docs.db.building-PID`) that no reader sees. A first
index is published by a hard link. `ingest --rebuild` copies the build into the live index
in one write transaction (SQLite's backup API): a reader, in this process or another, finds
the old index or the new one at every moment, never none (#26). Only where that cannot be
done (the old file is damaged, or its page size differs while a reader holds it open) is
the old file unlinked and the new one linked; a reader that arrives in between waits for
the link (`wait_for_swap`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import suppress
from pathlib import Path

from kenso_git.errors import DatabaseError
from kenso_git.repo.safeopen import ensure_private_dir
from kenso_git.store import wal
from kenso_git.store.faults import file_failure

BUILD_SUFFIX = ".building-"
_SWAP_TAG = "-swap"  # beside a build: its process is between unlinking and linking
SIDE_FILES = ("-wal", "-shm")
SWAP_WAIT_S = 1.0  # how long a reader waits for a swap by link to end
_POLL_S = 0.002


def new_build_path(db_path: Path) -> Path:
    """A private file to build a new index in; leftovers of dead builds are removed."""
    try:
        ensure_private_dir(db_path.parent)
        remove_dead_builds(db_path)
    except OSError as err:
        raise file_failure(db_path, err) from err
    return db_path.with_name(f"{db_path.name}{BUILD_SUFFIX}{os.getpid()}")


def _build_files(db_path: Path) -> list[tuple[str, int | None]]:
    """The names of build files beside `db_path`, with their process id (None: no id)."""
    prefix = f"{db_path.name}{BUILD_SUFFIX}"
    found = []
    for name in os.listdir(db_path.parent):  # a few names: no stat of each (scandir's)
        if name.startswith(prefix):
            pid = name[len(prefix) :].split("-", 1)[0]
            found.append((name, int(pid) if pid.isdigit() else None))
    return found


def remove_dead_builds(db_path: Path) -> None:
    """Remove the build files beside `db_path` whose process is gone (a killed
    `ingest --rebuild` or first build); every writer calls this under the write lock.

    Raises:
        OSError: the folder cannot be listed or a file removed.
    """
    for name, pid in _build_files(db_path):
        if pid is None or not _alive(pid):
            (db_path.parent / name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PublishedMeanwhileError(DatabaseError):
    """Another writer published an index at the name this build was for (its lock was
    bypassed: `rm -rf .kenso` removed the lock file with the index)."""


def publish_build(
    conn: sqlite3.Connection, build: Path, db_path: Path, *, replace: bool = False
) -> None:
    """Make a finished build durable, switch it to WAL and give it its public name; with
    `replace`, its content replaces the index at `db_path` (`_swap_in`). Closes `conn`.

    The caller holds the write lock (`index.lock`) and removes `build` afterwards. A `-wal`
    or `-shm` left beside the name by an index that was deleted (or unlinked here) is
    removed first: SQLite would replay that old journal into the new file and corrupt it.

    Raises:
        PublishedMeanwhileError: another process published an index at `db_path` meanwhile.
    """
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        swapped = replace and db_path.exists() and _swap_in(conn, db_path)
    finally:
        conn.close()  # before a link: the new name never has a second writer
    if not swapped:
        _link(build, db_path, replace=replace)


def _swap_in(src: sqlite3.Connection, db_path: Path) -> bool:
    """Copy the build `src` into the index at `db_path` in one write transaction; False
    when it cannot be (damaged, or another page size while a reader has it open)."""
    from kenso_git.store.connection import write_wait_ms

    try:
        dest = sqlite3.connect(wal.file_uri(db_path, "rw"), uri=True, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        dest.execute(f"PRAGMA busy_timeout={write_wait_ms()}")
        size = src.execute("PRAGMA page_size").fetchone()[0]
        if dest.execute("PRAGMA page_size").fetchone()[0] != size:
            # A WAL file keeps its page size (an index made before 16 KB pages): out of
            # WAL it may change, which only a file nobody has open can leave.
            dest.execute("PRAGMA busy_timeout=0")
            if dest.execute("PRAGMA journal_mode=DELETE").fetchone()[0] != "delete":
                return False
            dest.execute(f"PRAGMA busy_timeout={write_wait_ms()}")
        src.backup(dest)  # every page in one step: one transaction of the index
    except sqlite3.Error:
        return False  # damaged (or busy): nothing was written to it; publish by link
    else:
        with suppress(sqlite3.Error):  # the next writer does both otherwise
            dest.execute("PRAGMA journal_mode=WAL")
            dest.execute("PRAGMA busy_timeout=0")
            dest.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return True
    finally:
        dest.close()


def _link(build: Path, db_path: Path, *, replace: bool) -> None:
    marker = Path(f"{build}{_SWAP_TAG}") if replace else None
    try:
        fd = os.open(build, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if marker is not None:  # readers that find no index meanwhile wait for the link
            marker.touch()
        if replace:
            db_path.unlink(missing_ok=True)  # readers of the old file keep it open
        if not db_path.exists():
            for suffix in SIDE_FILES:
                Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        os.link(build, db_path)  # never replaces: an index someone else made stays
    except FileExistsError:
        raise PublishedMeanwhileError(
            "another kenso-git created the index while this one was building it",
            path=str(db_path),
            hint="run the command again: it will update that index",
        ) from None
    except OSError as err:
        raise file_failure(db_path, err) from err
    finally:
        if marker is not None:
            marker.unlink(missing_ok=True)


def _swapping(db_path: Path) -> bool:
    """A live process is between unlinking the index at `db_path` and linking its new one."""
    try:
        builds = _build_files(db_path)
    except OSError:
        return False
    return any(name.endswith(_SWAP_TAG) and pid is not None and _alive(pid) for name, pid in builds)


def wait_for_swap(db_path: Path) -> bool:
    """Whether an index is at `db_path` once a swap by link under way there has ended
    (waiting SWAP_WAIT_S at most); False at once when none is under way."""
    deadline = time.monotonic() + SWAP_WAIT_S
    while _swapping(db_path):
        if db_path.is_file() or time.monotonic() > deadline:
            break
        time.sleep(_POLL_S)
    return db_path.is_file()
