"""The watcher: file-system events on the checkout, coalesced into incremental syncs.

Editors, `git clean` and sparse checkouts fire no git hook; the watcher sees them as they
happen and syncs through the same library call as the hooks (`KnowledgeBase.sync`, under
the one write lock), so the index follows the work tree even between queries. Events
arrive from `watchfiles` (inotify, FSEvents...) and are grouped until ~50 ms pass without
one. A changed Markdown file is synced by path; a folder event, a moved HEAD or an edited
ignore or config file makes the watcher ask what the query-time check asks
(`index.refresh.pending`: one `git status` against the last sync's mark, else a walk).
Where events are unavailable (no inotify, its watch limit reached) it falls back to that
check every second, saying so once in the log.

It runs in a daemon thread and never raises: a failure sets `status().ok` to False with
the reason, and the next good sync sets it back.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kenso_git.api.index import CHECK_EVERY_S
from kenso_git.api.index import WatchSeq
from kenso_git.api.index import git_stamp
from kenso_git.errors import IndexLockedError
from kenso_git.errors import KensoError
from kenso_git.triggers.watch_batch import CONFIG_FILES
from kenso_git.triggers.watch_batch import RULE_FILES
from kenso_git.triggers.watch_batch import Batch
from kenso_git.triggers.watch_batch import classify
from kenso_git.triggers.watch_batch import is_temporary

if TYPE_CHECKING:
    from kenso_git.api.index import FileRow
    from kenso_git.kb import KnowledgeBase

log = logging.getLogger("kenso_git.watch")

QUIET_MS = 20  # a batch is synced once this long passes without a new event (watchfiles step)
MAX_BATCH_MS = 1000  # ... or when it has been growing this long (a long checkout)
POLL_S = 1.0  # the fallback's period
HAND_OFF_S = 1.0  # the watcher waits this long for another writer, then hands it the sync
# watchfiles' wait wakes after this long without events (once armed, we catch up once more;
# later wake-ups do nothing: ~4 a second of a loop step, nothing measurable idle).
ARMED_CHECK_MS = 250
RELEASE_AFTER_FILES = 5000  # after comparing this many rows, give the memory back to the OS


@dataclass(frozen=True, slots=True)
class SyncNote:
    """One sync the watcher ran: what it looked at and what it wrote."""

    looked: int  # paths looked at (every file of the scope for a full check)
    changed: int  # files indexed or removed
    full: bool  # a comparison of the whole scope, not a list of paths
    elapsed_ms: float
    reason: str  # events, folder, head, rules, start, poll or schedule


@dataclass(frozen=True, slots=True)
class WatcherStatus:
    """Whether the watcher is doing its job: `ok` None when it was never started."""

    ok: bool | None
    mode: str  # off, starting, events, polling or stopped
    reason: str | None
    syncs: int  # syncs run
    checks: int  # steps done (a batch of events, a poll, the catch-up), failed ones too


class Watcher:
    """Keeps one knowledge base equal to its work tree from a background thread."""

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        on_sync: Callable[[SyncNote], None] | None = None,
        on_rules: Callable[[], None] | None = None,
        poll_only: bool = False,
        poll_s: float = POLL_S,
        check_every_s: float = CHECK_EVERY_S,
        log_failures: bool = True,
    ) -> None:
        self.kb = kb
        # False: the owner tells `status().reason` itself (`kenso-git watch` prints it)
        self.log_failures = log_failures
        self.root = kb.workspace.root
        self.on_sync = on_sync
        self.on_rules = on_rules  # the owner re-reads settings and scope (the server's gate)
        self.poll_only = poll_only
        self.poll_s = poll_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ok: bool | None = None
        self._mode = "off"
        self._reason: str | None = None
        self._syncs = 0
        self._checks = 0
        self._status_lock = threading.Lock()
        self._changed = threading.Condition(self._status_lock)
        self._listeners: list[Callable[[], None]] = []  # told after each sync (SSE streams)
        # what this watcher vouches for: queries of `kb` skip their check meanwhile (#32)
        self.check_every_s = check_every_s  # the whole check's schedule while events arrive
        self.seq = WatchSeq(vouch_s=2 * check_every_s, stamp=git_stamp(kb.workspace.git_dir))
        self._last_full = time.monotonic()  # start of the last whole check (its schedule)

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the background thread (a catch-up check runs first)."""
        self._set(None, "starting", None)
        self.kb.watch_seq = self.seq
        self._thread = threading.Thread(target=self._main, name="kenso-git-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end and wait for it (bounded)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set(self._ok, "stopped", self._reason)

    def run(self) -> None:
        """Watch in the calling thread until `stop()` (or Ctrl-C there)."""
        self._set(None, "starting", None)
        self.kb.watch_seq = self.seq
        try:
            self._main()
        finally:
            self.seq.watching(False)

    def status(self) -> WatcherStatus:
        """What the health check reports."""
        with self._status_lock:
            return self._status()

    def _status(self) -> WatcherStatus:
        return WatcherStatus(self._ok, self._mode, self._reason, self._syncs, self._checks)

    def wait_until(self, done: Callable[[WatcherStatus], bool], timeout: float) -> WatcherStatus:
        """The status once `done(status)` holds, or after `timeout` seconds (tests, benches)."""
        with self._changed:
            self._changed.wait_for(lambda: done(self._status()), timeout)
            return self._status()

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` in the watcher's thread after each sync; returns the unsubscribe."""
        with self._status_lock:
            self._listeners.append(listener)
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._status_lock, contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _set(self, ok: bool | None, mode: str, reason: str | None) -> None:
        with self._changed:
            self._ok, self._mode, self._reason = ok, mode, reason
            self.seq.watching(ok is True and mode == "events")
            self._changed.notify_all()

    # -- the loop ------------------------------------------------------------------------

    def _main(self) -> None:
        # Before the catch-up: an edit made once the fallback has said it polls is then
        # never taken for the state it started from.
        rules = self._rule_files() if self.on_rules is not None else []
        self._guarded(self._catch_up)
        if not self.poll_only:
            try:
                self._watch_events()
                return  # stopped (or Ctrl-C in the watching thread)
            except Exception as err:  # no inotify, its watch limit, an unwatchable file system
                if self._stop.is_set():
                    return
                log.warning(
                    "kenso-git: file-system events are unavailable (%s); checking the docs' "
                    "stat data every %.1f s instead",
                    err,
                    self.poll_s,
                )
        self._poll(rules)

    def _watch_events(self) -> None:
        import watchfiles

        paths = [str(self.root)]
        ws = self.kb.workspace
        if ws.git_dir is not None and not ws.git_dir.is_relative_to(self.root):
            paths.append(str(ws.git_dir))  # a linked worktree: its HEAD lives elsewhere
            heads = ws.common_dir / "refs" / "heads" if ws.common_dir is not None else None
            if heads is not None and heads.is_dir():
                paths.append(str(heads))  # ... and its branch's commits in the shared refs
        armed = False
        for changes in watchfiles.watch(
            *paths,
            watch_filter=None,  # the ignore rules decide, in _classify
            debounce=MAX_BATCH_MS,
            step=QUIET_MS,
            stop_event=self._stop,
            rust_timeout=ARMED_CHECK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            if not armed:
                # watchfiles arms its watches before it first waits: a change made between
                # the catch-up and now fired no event we will see (a commit, which touches
                # no doc, then waited for the next event forever). Check once more.
                armed = True
                self.seq.received()  # pending until that check: queries check meanwhile
                self._set(self._ok, "events", self._reason)
                self._guarded(lambda: self._full("start"))
            if not changes:  # the wait timed out: nothing changed, or nothing reported
                if time.monotonic() - self._last_full >= self.check_every_s:
                    self._guarded(lambda: self._full("schedule"))
                continue
            number = self.seq.received()  # pending until synced: queries check meanwhile
            batch = self._classify(path for _change, path in changes)
            if batch.full or batch.paths:
                self._guarded(functools.partial(self._run_batch, batch, number))
            else:
                self.seq.synced(number)  # nothing the index holds

    def _poll(self, rules: list[tuple[int, int, int] | None]) -> None:
        self._set(self._ok, "polling", self._reason)
        pause = self.poll_s
        while not self._stop.wait(pause):
            started = time.monotonic()
            now = self._rule_files()
            if now != rules and self.on_rules is not None:
                rules = now  # an edited config or ignore file: the owner re-reads it first
                self._guarded(self.on_rules)
            self._guarded(lambda: self._full("poll"))
            # A check of a monorepo's scope can take a second: rest ten times as long, so
            # the fallback never costs more than a tenth of a core.
            pause = max(self.poll_s, 10 * (time.monotonic() - started))

    def _rule_files(self) -> list[tuple[int, int, int] | None]:
        """The stat data of the checkout's top-level rule and config files (and git's
        info/exclude): the fallback has no events to say one was edited."""
        ws = self.kb.workspace
        paths = [self.root / name for name in sorted(RULE_FILES | CONFIG_FILES)]
        if ws.git_dir is not None:
            paths.append(ws.git_dir / "info" / "exclude")
        seen: list[tuple[int, int, int] | None] = []
        for path in paths:
            try:
                st = path.stat()
            except OSError:
                seen.append(None)
                continue
            seen.append((st.st_ino, st.st_size, st.st_mtime_ns))
        return seen

    def _guarded(self, work: Callable[[], None]) -> None:
        """Run one step; whatever fails is reported, never raised (the server lives on)."""
        try:
            work()
        except IndexLockedError:
            pass  # handed to the lock holder, which syncs this change too
        except KensoError as err:
            reason = f"{err.message}; {err.hint}" if err.hint else err.message
            if self.log_failures and self._new_failure(reason):
                log.warning("kenso-git: the watcher could not sync: %s", reason)
            self._set(False, self._mode, reason)
        except Exception as err:
            reason = f"{type(err).__name__}: {err}"
            if self._new_failure(reason):  # its traceback, even when the owner tells why
                log.exception("kenso-git: the watcher failed")
            self._set(False, self._mode, reason)
        with self._changed:
            self._checks += 1
            self._changed.notify_all()

    # -- what events mean ----------------------------------------------------------------

    def _new_failure(self, reason: str) -> bool:
        """Whether `reason` is not the failure the status holds already: a read-only index
        fails each second's poll again, and the log said so each time."""
        was = self.status()
        return was.ok is not False or was.reason != reason

    def _classify(self, absolute: Iterable[str]) -> Batch:
        db_dir = str(self.kb.db_path.parent)
        return classify(absolute, self.kb.workspace, db_dir, self._was_folder)

    def _was_folder(self, rel: str) -> bool:
        if is_temporary(rel):
            return False
        from kenso_git.api.index import indexed_paths

        if not self.kb.db_path.exists():
            return False
        prefix = rel + "/"
        return any(p.startswith(prefix) for p in self.kb.read(indexed_paths))

    def _run_batch(self, batch: Batch, number: int) -> None:
        if batch.rules and self.on_rules is not None:
            self.on_rules()
        if batch.full:
            self._full(batch.reason)
        else:
            self._sync(sorted(batch.paths), full=False, reason="events")
        self.seq.synced(number)  # not reached when the sync failed: the batch stays pending

    # -- syncs ---------------------------------------------------------------------------

    def _catch_up(self) -> None:
        """What changed while nothing watched (the server was down) is synced first."""
        self._full("start")
        with self._changed:
            if self._ok is None:
                self._ok = True

    def _full(self, reason: str) -> None:
        from kenso_git.api.index import load_files
        from kenso_git.api.index import pending
        from kenso_git.api.index import read_meta

        kb = self.kb
        self._last_full = begun = time.monotonic()
        number = self.seq.current()  # the batches this check covers
        stamp = self.seq.stamp()  # git's index and HEAD as this check finds them
        if not kb.db_path.exists():
            return  # serving never creates an index
        started = time.perf_counter()
        walked = 0  # rows compared by a walk (none when git status named the changes)

        def snapshot() -> tuple[dict[str, str], dict[str, FileRow]]:
            nonlocal walked
            meta, stored = kb.read(lambda conn: (read_meta(conn), load_files(conn)))
            walked = len(stored)
            return meta, stored

        # the query-time check's own question: `git status` against the mark, else a walk
        found, remark = pending(kb.workspace, kb.settings, kb.read, snapshot)
        if walked >= RELEASE_AFTER_FILES:
            _release_memory()
        if not found.any and not remark:
            self._healthy()
            self.seq.checked(begun, number, stamp)
            return
        # A branch switch can touch thousands, and a whole sync leaves a new mark: then the
        # index's own sync of everything is cheaper than a list of paths. An index parsed
        # by other settings or another version is parsed again whole (never by a query).
        whole = found.too_many or found.mark_behind or remark or found.reparse
        paths = None if whole else found.paths
        looked = walked or len(found.paths)
        self._sync(paths, full=True, reason=reason, started=started, looked=looked)
        self.seq.checked(begun, number, stamp)

    def _sync(
        self,
        paths: list[str] | None,
        *,
        full: bool,
        reason: str,
        started: float | None = None,
        looked: int | None = None,
    ) -> None:
        kb = self.kb
        if not kb.db_path.exists():
            return
        started = time.perf_counter() if started is None else started
        report = kb.sync(paths=paths, hand_off=HAND_OFF_S, create=False)  # never creates (#26)
        changed = report.count("ingested") + report.count("removed")
        with self._status_lock:
            self._syncs += 1
            listeners = list(self._listeners)
        for listener in listeners:
            listener()  # must not raise: `Wake._poke` only schedules a call on a loop
        self._healthy()
        if self.on_sync is not None:
            count = looked if looked is not None else len(paths or ())
            ms = (time.perf_counter() - started) * 1000
            self.on_sync(SyncNote(count, changed, full, ms, reason))

    def _healthy(self) -> None:
        with self._changed:
            self._ok, self._reason = True, None
            self.seq.watching(self._mode == "events")


def _release_memory() -> None:
    """Hand the rows of a large comparison back to the OS: they were allocated in this
    thread's malloc arena, which glibc keeps (~9 MB at 48,600 docs) unless trimmed."""
    import contextlib
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim this way
        ctypes.CDLL("libc.so.6").malloc_trim(0)
