"""The write lock beside the index, and the "dirty, rerun" mark that coalesces writers.

Every writer (`ingest`, `sync`, the git hooks, their background worker) takes this lock
before it opens the database for writing, so no writer ever sits in SQLite's busy wait (a
C loop that Ctrl-C cannot end). A writer that may not wait (a git hook) leaves the mark
and returns; the holder sees it and syncs once more before it lets go. Imports nothing
heavy: the hooks load it on every git command.
"""

from __future__ import annotations

import fcntl
import os
import time
from _thread import get_ident  # built in and loaded at start-up: `threading` is not
from collections.abc import Callable
from pathlib import Path

from kenso_git.errors import IndexLockedError
from kenso_git.errors import UsageError
from kenso_git.repo.safeopen import PRIVATE_FILE_MODE
from kenso_git.repo.safeopen import ensure_private_dir
from kenso_git.store.faults import file_failure

LOCK_FILE = "sync.lock"
DIRTY_FILE = "sync.dirty"
MAX_ROUNDS = 5  # runs one lock holder does back to back at most
HOOK_WAIT_S = 1.0  # a git hook waits this long, then hands its sync to the holder
CLI_WAIT_S = 600.0  # a command waits this long (saying so), then gives up
QUERY_WAIT_S = 0.25  # a query-time sync waits this long, then hands its sync to the holder
# A query whose change is past what it syncs waits this long for a writer syncing it (a
# hook's background sync after a checkout, the watcher), then answers flagged stale.
QUERY_WRITER_WAIT_S = 5.0
# ... and gives a writer this long to start (the watcher's events, a hook's detached sync).
WRITER_START_S = 0.5
_POLL_S = 0.02
_PID_BYTES = 32  # what a lock file holds: the holder's pid
# (lock file, thread) pairs held here: re-entrant for the holding thread only (a hook's sync
# runs the index inside the lock), so a tool thread never writes beside the watcher's thread.
_held: set[tuple[str, int]] = set()

Say = Callable[[str], None]


def _open_lock(path: Path) -> int:
    try:
        ensure_private_dir(path.parent)
        return os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError as err:
        raise file_failure(path, err) from err


def try_lock(path: Path) -> int | None:
    """The fd of the lock at `path` if it was free (now held), else None.

    Raises:
        IndexWriteError: the folder cannot be written (read-only, full).
    """
    fd = _open_lock(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    if not _still_named(fd, path):
        # `rm -rf .kenso` removed the file between our open and our lock: a lock on that
        # file excludes nobody who opens the path now. Take the one the path names.
        os.close(fd)
        return try_lock(path)
    try:
        held = os.pread(fd, _PID_BYTES, 0)
    except OSError:
        held = b""
    if held.strip() and not held.strip().isdigit():  # someone else's file of that name
        os.close(fd)
        raise _not_ours(path, held)
    try:  # who holds it, for the message of those who wait
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    except OSError:
        pass
    return fd


def _not_ours(path: Path, held: bytes) -> UsageError:
    """The error for a file at the lock's name that holds something else than a pid: an
    index named by `--db` shares its folder, and that file is not ours to overwrite."""
    shown = held.decode("utf-8", "replace").split("\n")[0][:20]
    return UsageError(
        f"{path.name} is not kenso-git's lock (it holds {shown!r}): left as it is",
        path=str(path),
        hint="keep the index in a folder of its own (--db FOLDER/docs.db), or the default "
        ".kenso/docs.db",
    )


def _still_named(fd: int, path: Path) -> bool:
    try:
        mine, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (named.st_dev, named.st_ino)


def holder(path: Path) -> str:
    """`pid N` of the process that holds the lock, as it wrote it (or "another process")."""
    try:
        pid = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        pid = ""
    return f"pid {pid}" if pid.isdigit() else "another process"


def acquire(path: Path, wait: float, say: Say | None = None) -> int | None:
    """Take the lock, polling for at most `wait` seconds (Ctrl-C ends the wait), and never
    past the budget of the tool call running on this thread; None if it stayed held. Says
    once on `say` that it waits."""
    fd = try_lock(path)
    if fd is not None or wait <= 0:
        return fd
    wait = within_call(wait)
    if wait <= 0:
        return None
    if say is not None:
        say(f"waiting for {holder(path)}, which is writing the index (up to {wait:.0f} s)")
    deadline = time.monotonic() + wait
    while fd is None and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        fd = try_lock(path)
    return fd


def within_call(wait: float) -> float:
    """`wait` cut to what the tool call on this thread has left of its wall budget
    (`store.budget`, loaded only here: a hook that finds the lock free never imports it)."""
    from kenso_git.store.budget import wait_left

    left = wait_left(wait)
    return wait if left is None else left


def held(path: Path) -> bool:
    """Whether a writer holds the lock at `path` now (taken to look, and let go at once).

    Raises:
        IndexWriteError: the folder cannot be written.
    """
    fd = try_lock(path)
    if fd is None:
        return True
    release(fd)
    return False


def wait_for_release(path: Path, wait: float) -> bool:
    """Whether the lock at `path` (held, as `held` saw) was let go within `wait` seconds:
    taken once free, and let go at once.

    Raises:
        IndexWriteError: the folder cannot be written.
    """
    fd = acquire(path, wait)
    if fd is None:
        return False
    release(fd)
    return True


def release(fd: int) -> None:
    """Let go of the lock `try_lock` gave. Unlocked before it is closed: a process forked
    while it was held (a parse worker, the ingest's lint summary) has the same open file,
    and a close alone would leave the lock held until that process ended too."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _pending(mark: Path) -> bool:
    """Whether a mark is there: an empty file (one with text is someone else's)."""
    try:
        return mark.stat().st_size == 0
    except OSError:
        return False


def _consume(mark: Path) -> bool:
    if not _pending(mark):
        return False
    try:
        mark.unlink()
    except FileNotFoundError:
        return False
    return True


def coalesced(
    folder: Path,
    job: Callable[[int], object],
    *,
    wait: float,
    own_run: bool,
    say: Say | None = None,
) -> bool:
    """Run `job(0)` under the lock in `folder`, then `job(n)` for each rerun others asked for.

    With `own_run` (a command), the caller's own run always happens: it waits for the lock
    and raises when it stays held. Without it (a hook), the caller only asks: it leaves the
    mark, waits at most `wait`, and returns False when the holder will run for it.

    Raises:
        IndexLockedError: `own_run` and the lock stayed held for `wait` seconds (or
            for what the budget of the tool call on this thread had left).
        IndexWriteError: the folder cannot be written.
    """
    lock, dirty = folder / LOCK_FILE, folder / DIRTY_FILE
    mine = (str(lock), get_ident())
    if own_run and mine in _held:  # held by this thread already: a hook's sync runs the index
        job(0)
        return True
    cut = ""
    if own_run:
        bounded = within_call(wait)  # a tool call (`reindex`) waits only while its budget lasts
        cut = "" if bounded == wait else " (what the call's budget had left)"
        wait = bounded
    else:
        _mark(dirty)
    fd = acquire(lock, wait, say if own_run else None)
    if fd is None:
        if not own_run:
            return False
        raise IndexLockedError(
            f"{holder(lock)} held the index's write lock for {wait:.0f} s{cut}",
            path=str(lock),
            hint="another kenso-git ingest or sync is running; try again when it ends",
        )
    rounds = 0
    for _ in range(MAX_ROUNDS):
        _held.add(mine)
        try:
            if own_run and rounds == 0:
                job(0)
                rounds = 1
            for _ in range(MAX_ROUNDS):
                if not _consume(dirty):
                    break
                job(rounds)
                rounds += 1
        finally:
            _held.discard(mine)
            release(fd)
        if not _pending(dirty):
            return True
        fd = try_lock(lock)  # a mark came after our last look: run it, unless a new
        if fd is None:  # holder took the lock, which will
            return True
    return True


def ask_rerun(folder: Path) -> None:
    """Leave the "dirty, rerun" mark in `folder`: the lock's holder syncs once more.

    Raises:
        IndexWriteError: the folder cannot be written.
    """
    _mark(folder / DIRTY_FILE)


def _mark(dirty: Path) -> None:
    try:
        ensure_private_dir(dirty.parent)
        dirty.touch(mode=PRIVATE_FILE_MODE)
    except OSError as err:
        raise file_failure(dirty, err) from err
