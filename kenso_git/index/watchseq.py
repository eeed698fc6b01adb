"""What a watcher in this process vouches for: the query-time check skipped while it has
nothing pending (#32).

Each query runs the query-time check (`index.refresh`): one `git status`, a few ms on the
docs corpus and 250 ms on a monorepo, on every call, even when a file-system watcher in the
same process has already synced every change. The watcher publishes here a sequence
number of the event batches it has received and the number it has synced, and the start
of its last whole-scope check that left nothing to sync. `KnowledgeBase._refresh` skips its
check while the watcher `vouches`: it is healthy and watching events, every batch it
received is synced, and its last whole check is younger than `VOUCH_S`; and only where
the check costs at least `VOUCH_AFTER_S`, since an edit younger than its events' arrival is
then answered from before it.

Edits no event reported (an overflowing inotify queue, a file system without events) are
found by the watcher's whole check on its schedule (`CHECK_EVERY_S`): a watcher whose
check is overdue (stalled, or gone) vouches for nothing, and queries check again. An event
reaches the watcher once the file system has been quiet for its debounce step (~20 ms):
an edit younger than that may not be pending yet. A git operation (checkout, reset, merge,
rebase, stash) rewrites git's index file, so the watcher vouches only while that file and
HEAD are as they were when its last whole check began (`git_stamp`, two `stat` calls per
query): an answer asked for right after a branch switch runs its own check instead of
trusting a watcher whose events have not arrived yet.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

# The watcher's whole check (a `git status` against the mark, else a walk) runs this often
# while events arrive normally: an edit no event reported is synced within this long.
CHECK_EVERY_S = 5.0
# A check older than this vouches for nothing: the watcher is stalled or its schedule slips.
VOUCH_S = 2 * CHECK_EVERY_S
# The watcher vouches only where a query's own check costs at least this long (the last one
# measured): an edit younger than its events' arrival (~20 to 100 ms) may be answered from
# before it, a trade worth making for a monorepo's 250 ms `git status`, not for a few ms.
VOUCH_AFTER_S = 0.05


class WatchSeq:
    """The watcher's published state; read by any thread, written by the watcher's."""

    __slots__ = (
        "_checked_at",
        "_lock",
        "_received",
        "_stamp",
        "_stamp_of",
        "_synced",
        "_watching",
        "vouch_s",
    )

    def __init__(self, vouch_s: float = VOUCH_S, stamp: Callable[[], object] | None = None) -> None:
        self.vouch_s = vouch_s  # a whole check older than this vouches for nothing
        self._stamp_of = stamp or _no_stamp  # what git operations change (`git_stamp`)
        self._stamp: object = None  # ... as it was when the last whole check began
        self._lock = threading.Lock()
        self._received = 0  # event batches received
        self._synced = 0  # the highest batch number synced (every batch up to it)
        self._checked_at: float | None = None  # monotonic start of the last clean whole check
        self._watching = False  # healthy and receiving events (not polling, not failed)

    def received(self) -> int:
        """A batch of events arrived: pending until `synced` with the number returned."""
        with self._lock:
            self._received += 1
            return self._received

    def current(self) -> int:
        """The number of the last batch received (what a whole check started now covers)."""
        with self._lock:
            return self._received

    def synced(self, number: int) -> None:
        """Every batch up to `number` is in the index."""
        with self._lock:
            self._synced = max(self._synced, number)

    def stamp(self) -> object:
        """What git operations change, now (taken when a whole check begins)."""
        return self._stamp_of()

    def checked(self, started: float, number: int, stamp: object = None) -> None:
        """A whole check that started at `started` (monotonic), when batch `number` was the
        last received and git's files read `stamp`, left the index equal to the work tree:
        batches up to it are synced."""
        with self._lock:
            self._synced = max(self._synced, number)
            if self._checked_at is None or started > self._checked_at:
                self._checked_at = started
                self._stamp = stamp

    def watching(self, healthy: bool) -> None:
        """Whether the watcher is healthy and receiving events (a failure, the polling
        fallback or a stop: False)."""
        with self._lock:
            self._watching = healthy

    def vouches(self, now: float | None = None) -> bool:
        """Whether a query may skip its check: healthy, nothing pending, checked recently."""
        now = time.monotonic() if now is None else now
        current = self._stamp_of()
        with self._lock:
            return (
                self._watching
                and self._synced >= self._received
                and self._checked_at is not None
                and now - self._checked_at <= self.vouch_s
                and current == self._stamp
            )


def _no_stamp() -> object:
    return None


def git_stamp(git_dir: Path | None) -> Callable[[], object]:
    """What a git operation that changes the work tree changes first: git's index file and
    HEAD (their inode, size and modification time); nothing outside a repository."""
    if git_dir is None:
        return _no_stamp
    files = (os.fspath(git_dir / "index"), os.fspath(git_dir / "HEAD"))

    def stamp() -> object:
        out: list[tuple[int, int, int] | None] = []
        for name in files:
            try:
                st = os.stat(name)
            except OSError:
                out.append(None)
                continue
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(out)

    return stamp
