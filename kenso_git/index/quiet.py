"""The query-time check, skipped while nothing that could change the index has changed.

Every search and document read runs the query-time check (`index.refresh`): a `git status`
(a few ms on the docs corpus, 250 ms on a monorepo), or a walk outside git. In a process
that answers many queries (the MCP server, the language server, a library user), the
second check starts a thread that arms an inotify queue on every folder the index's walk
enters (`repo.inotify`: the kernel queues an event before the write that caused it
returns; the walk is no query's wait), and from then on a check that found the index fresh
is trusted by later queries for as long as:

- no event has been queued since just before that check began (a save, a rename, a new
  or deleted file or folder, anywhere in the walked folders, Markdown or not);
- HEAD, git's configuration, its exclude files, sparse-checkout and shallow files are as
  they were (their stat data: git changes them without touching the work tree);
- the index file is the same file, and no connection committed to it since (`PRAGMA
  data_version` on a connection of this watch's own).

So an answer is never older than a save that returned before the query began: the same
promise as the check itself, without its cost. Anything the watch cannot see makes it
stand aside, and every query checks as before: not Linux, a file system that is not
local (`repo.mounts`: a network or FUSE mount reports no change made elsewhere), more
folders than a quarter of the user's inotify watch limit, a hard-linked doc (written
through its other name, it reports no event here), a lost queue (overflow) until it is
armed again. (A symlinked doc's target is a Markdown file the walk reaches: its folder is
watched.) What no event reports at all (a write through a shared `mmap`, a hard link made
later from outside the tree) is found by the check a query runs once the last one is
`MAX_TRUST_S` old. A new, moved or
deleted folder, an edited ignore file or marker anywhere, or an edited settings file of the
root (the only one the settings are read from), re-arms it from a fresh walk before the
next check.

`report` says where it stands (`health_check` and `index_state` show it): armed, arming,
or standing aside and why, in words that name no path.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
import time
from typing import TYPE_CHECKING

from kenso_git.records import NamedTuple
from kenso_git.repo.foreign import MARKER_NAMES
from kenso_git.repo.ignore import IGNORE_FILES

if TYPE_CHECKING:
    from pathlib import Path

    from kenso_git.config import Settings
    from kenso_git.index.refresh import Freshness
    from kenso_git.repo.inotify import Inotify
    from kenso_git.repo.workspace import Workspace

# Names whose change in any folder re-arms the watch from a fresh walk: they decide which
# folders it walks (ignore rules, the markers of nested repositories and environments,
# whose folders the walk watches but does not enter).
RULE_NAMES = frozenset({*IGNORE_FILES, *MARKER_NAMES})
# ... and in the root only: the settings files (`config.read_config_table` reads the root's;
# their `exclude` decides the walk). A `pyproject.toml` of any other folder is no setting.
SETTINGS_NAMES = frozenset({"pyproject.toml", ".kenso.toml"})
# The watch takes at most this share of the user's inotify watches (the watcher of `serve`
# and editors need theirs), and never more than `MAX_FOLDERS`.
WATCH_SHARE = 4
MAX_FOLDERS = 100_000
# A check is trusted this long at most: a write no event reports (through a shared `mmap`,
# or a hard link made later from outside the tree) is found within it.
MAX_TRUST_S = 60.0

# Where the watch stands (`WatchReport.state`) and why, in words that name no path.
ARMED, ARMING, OFF, ASIDE = "armed", "arming", "off", "aside"
NOT_YET = "not armed yet: a process arms it from its second query-time check"
OVERFLOW = "its queue overflowed: arming again"
FOLDER_GONE = "a watched folder moved or went away: arming again"
WALK_AGAIN = "a folder, an ignore file, a marker or a settings file changed: arming again"
GIT_CHANGED = "HEAD or git's configuration changed: arming again"
NEW_SETTINGS = "the settings changed: arming again"
NOT_LOCAL = "the work tree is not on a local file system"
NO_INOTIFY = "inotify is not available (not Linux, or no inotify instance left)"
EXHAUSTED = "inotify watches are exhausted, or a folder cannot be watched"
OFF_SYNC = "query-sync = false: there is no query-time check to skip"
OFF_SETTING = "query-watch = false"
ONE_SHOT = (
    "a one-shot command runs one query-time check: a long-lived process "
    "(serve, lsp, a library user) arms the watch"
)


class WatchReport(NamedTuple):
    """Whether the watch vouches for the query-time check (`QuietWatch.report`)."""

    state: str  # armed: a query skips the check while nothing changed; arming, off, aside
    reason: str | None  # why it is not armed (no path); None when armed
    folders: int  # the folders its queue watches (0 unless armed)


class Token(NamedTuple):
    """What the watch saw just before a check began (`QuietWatch.before_check`)."""

    seq: int  # the event batches read
    stamp: object  # `QuietWatch._stamp()`
    at: float  # time.monotonic()


class _Settled(NamedTuple):
    token: Token
    version: tuple[object, int]  # the index's file identity and data_version after it
    freshness: Freshness


def report_of(
    watch: QuietWatch | None, settings: Settings, root: Path, *, one_shot: bool = False
) -> WatchReport:
    """Where the query-time check's watch of a knowledge base stands (`watch`: its watch,
    None until its second check makes one). `one_shot`: the caller runs one check (a CLI
    command), so no watch of its own will ever vouch; what would make one stand aside
    without a walk is still said."""
    if not settings.query_sync:
        return WatchReport(OFF, OFF_SYNC, 0)
    if not settings.query_watch:
        return WatchReport(OFF, OFF_SETTING, 0)
    if watch is not None:
        return watch.report()
    if not sys.platform.startswith("linux"):
        return WatchReport(ASIDE, NO_INOTIFY, 0)
    if not one_shot:
        return WatchReport(ARMING, NOT_YET, 0)
    from kenso_git.repo.mounts import all_local

    if not all_local(str(root)):
        return WatchReport(ASIDE, NOT_LOCAL, 0)
    return WatchReport(OFF, ONE_SHOT, 0)


def _watch(ino: Inotify, folder: str) -> None:
    # gone or closed since it was listed: its parent's watch reported that
    with contextlib.suppress(FileNotFoundError, NotADirectoryError, PermissionError):
        ino.add(folder)


class QuietWatch:
    """See the module docstring. Thread-safe; `close` drops the queue."""

    def __init__(self, ws: Workspace, settings: Settings, db_path: Path) -> None:
        self._ws, self._settings, self._db_path = ws, settings, db_path
        self._lock = threading.Lock()
        self._ino: Inotify | None = None
        self._seq = 0  # batches of events read so far
        self._rearm = False
        self._why = NOT_YET  # why it is not armed, while it is not
        self._off: str | None = None  # why the watch stands aside for good
        self._settled: _Settled | None = None
        self._conn: sqlite3.Connection | None = None
        self._identity: object = None
        self._stamped: list[str] = []  # the files `_stamp` looks at (read when armed)
        self._pid = os.getpid()  # a forked child shares the queue: it must never read it
        self._arming = False  # a thread is walking the tree to arm a new queue
        self._closed = False
        self._settled_arm = threading.Event()  # set once the first arming ended (tests)
        self.vouched = 0  # queries it answered for (tests, health)
        self.armed = 0  # times it walked the tree and armed its queue

    def vouches(self, settings: Settings) -> Freshness | None:
        """The freshness of the last check while nothing changed since it began; None: run
        the check. `settings`: the caller's now (a server re-reads them after an edit)."""
        with self._lock:
            settled = self._settled
            if settled is None or self._ino is None or os.getpid() != self._pid:
                return None
            if settings != self._settings:
                return None  # `before_check` walks again by the new ones
            self._drain()
            token = settled.token
            if token.seq != self._seq or self._rearm:
                return None
            if time.monotonic() - token.at > MAX_TRUST_S:
                return None
            if self._stamp() != token.stamp:
                # the configuration may name another excludes file
                self._rearm, self._why = True, GIT_CHANGED
                return None
            if self._version() != settled.version:
                return None
            self.vouched += 1
            return settled.freshness

    def before_check(self, settings: Settings) -> Token | None:
        """Arm (again) where needed, read what is queued, and what `settle` takes once the
        check ends; None: the watch stands aside (and forgets what it settled). `settings`:
        those the check runs with (their `exclude` decides which folders are walked)."""
        with self._lock:
            self._settled = None
            if self._off is not None or os.getpid() != self._pid:
                return None
            if settings != self._settings:
                self._settings, self._rearm, self._why = settings, True, NEW_SETTINGS
            if self._ino is not None:
                self._drain()
            if self._ino is None or self._rearm:
                self._start_arming()
                return None  # this check runs as always; a later one is trusted
            return Token(self._seq, self._stamp(), time.monotonic())

    def report(self) -> WatchReport:
        """Where the watch stands now: armed (a query finding nothing changed since the
        last check skips it), arming (a walk runs, or the next check starts one), or aside
        for good in this process, and why."""
        with self._lock:
            if self._off is not None:
                return WatchReport(ASIDE, self._off, 0)
            if self._closed or os.getpid() != self._pid:
                return WatchReport(OFF, "closed in this process", 0)
            if self._ino is not None:
                self._drain()  # what is queued now: a lost queue says so before a query
            if self._ino is None or self._rearm or self._arming:
                return WatchReport(ARMING, self._why, 0)
            return WatchReport(ARMED, None, len(self._ino.paths))

    def wait_armed(self, timeout: float) -> bool:
        """Wait for the first arming to end (armed or standing aside): True if it did."""
        return self._settled_arm.wait(timeout)

    def settle(self, token: Token | None, freshness: Freshness) -> None:
        """Trust `freshness` (what the check that `before_check` preceded found) until a
        change; a stale one is not trusted."""
        if token is None or freshness.stale:
            return
        with self._lock:
            if self._ino is None or self._rearm:
                return
            version = self._version()
            if version is not None:
                self._settled = _Settled(token, version, freshness)

    def close(self) -> None:
        """Drop the queue and the index connection (idempotent; a forked child drops
        nothing of its parent's)."""
        if os.getpid() != self._pid:
            return
        with self._lock:
            self._closed = True
            if self._ino is not None:
                self._ino.close()
                self._ino = None
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._settled = None

    # -- inside the lock ------------------------------------------------------------------

    def _start_arming(self) -> None:
        """Walk the tree in a thread (`_arm`): the walk (tens of ms at 20,000 docs, more in
        a monorepo) is no query's wait. Until it ends, checks run as they always do."""
        if self._arming:
            return
        self._arming, self._rearm = True, False
        threading.Thread(
            target=self._arm, args=(self._settings,), name="kenso-quiet-watch", daemon=True
        ).start()

    def _arm(self, settings: Settings) -> None:
        """Arm a new queue on the folders `settings` walk, then put it in place (or stand
        aside for good). Runs outside the lock until it swaps the queues."""
        try:
            ino, refused = self._new_queue(settings)
        except Exception as err:  # a fault here must not cost every query a walk
            ino, refused = None, f"arming failed ({type(err).__name__})"  # no path
        with self._lock:
            self._arming = False
            if refused is not None:
                self._off = refused
            if ino is not None and (self._closed or self._off is not None):
                ino.close()
            elif ino is not None:
                if self._ino is not None:
                    self._ino.close()
                self._ino = ino
                # a token taken on the old queue may have missed what only the new
                # queue holds: none of them is trusted
                self._seq += 1
                self._stamped = self._stamp_files()
                self.armed += 1
                if settings != self._settings:
                    # new settings came while it walked
                    self._rearm, self._why = True, NEW_SETTINGS
            self._settled_arm.set()

    def _new_queue(self, settings: Settings) -> tuple[Inotify | None, str | None]:
        """A queue on every folder the walk enters, or why the watch must stand aside."""
        from kenso_git.repo.discover import watch_walk
        from kenso_git.repo.inotify import Inotify
        from kenso_git.repo.inotify import max_watches
        from kenso_git.repo.mounts import all_local

        root = str(self._ws.root)
        if not all_local(root):
            return None, NOT_LOCAL
        limit = min(MAX_FOLDERS, (max_watches() or 8192) // WATCH_SHARE)
        try:
            ino = Inotify()
        except OSError:
            return None, NO_INOTIFY
        try:
            # each folder is watched before it is listed: a folder made meanwhile is
            # either listed or reported by its parent's watch
            ino.add(root)  # the root itself must be watched, or nothing is
            refused = watch_walk(self._ws, settings, lambda f: _watch(ino, f), limit=limit)
        except OSError:
            refused = EXHAUSTED
        if refused is not None:
            ino.close()
            return None, refused
        return ino, None

    def _drain(self) -> None:
        from kenso_git.repo.inotify import IN_ISDIR
        from kenso_git.repo.inotify import IN_Q_OVERFLOW
        from kenso_git.repo.inotify import LOST

        assert self._ino is not None
        events = self._ino.read()
        if not events:
            return
        self._seq += 1
        if events[-1].mask & IN_Q_OVERFLOW:  # the kernel queues it last
            self._rearm, self._why = True, OVERFLOW
            return
        root = str(self._ws.root)
        for event in events:
            if event.mask & LOST:
                self._rearm, self._why = True, FOLDER_GONE
                return
            setting = event.name in SETTINGS_NAMES and self._ino.paths.get(event.wd) == root
            if event.mask & IN_ISDIR or event.name in RULE_NAMES or setting:
                self._rearm, self._why = True, WALK_AGAIN
                return

    def _stamp_files(self) -> list[str]:
        """The files git reads that decide what the index holds, outside the work tree:
        its configuration (which names the others) and `gitprobe.outside_rule_files`."""
        from kenso_git.index.gitprobe import outside_rule_files
        from kenso_git.repo.gitconfig import config_files
        from kenso_git.repo.gitconfig import read_config

        ws = self._ws
        if ws.git_dir is None or ws.common_dir is None:
            return []
        return [*map(str, config_files(ws)), *outside_rule_files(ws, read_config(ws))]

    def _stamp(self) -> object:
        """HEAD and the stat data of `_stamp_files`: what git changes outside the work tree
        that can change the index."""
        from kenso_git.index.freshness import head_commit
        from kenso_git.index.gitprobe import stat_key

        return (head_commit(self._ws), *(stat_key(p) for p in self._stamped))

    def _version(self) -> tuple[object, int] | None:
        from kenso_git.store.connection import data_version
        from kenso_git.store.connection import file_identity
        from kenso_git.store.connection import version_reader

        identity = file_identity(self._db_path)
        if identity is None:
            return None
        try:
            if self._conn is None or identity != self._identity:
                if self._conn is not None:
                    self._conn.close()
                self._conn, self._identity = version_reader(self._db_path), identity
            return identity, data_version(self._conn)
        except sqlite3.Error:
            return None
