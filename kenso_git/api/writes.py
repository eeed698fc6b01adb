"""The writes of the library API: `ingest` (creates or rebuilds an index), `sync`, and
the query-time freshness check every read runs first (`refresh`), which syncs what it finds."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.api.core import Base
from kenso_git.api.core import T

if TYPE_CHECKING:
    import sqlite3

    from kenso_git.index.prepare import Digest
    from kenso_git.index.quiet import QuietWatch
    from kenso_git.index.quiet import Token as QuietToken
    from kenso_git.index.quiet import WatchReport
    from kenso_git.index.refresh import Freshness
    from kenso_git.index.report import IngestReport
    from kenso_git.index.report import Progress
    from kenso_git.index.report import Warn
    from kenso_git.repo.gitstatus import EarlyStatus


CHECK_RUNNING = (
    "another freshness check of the index (the server's start-up check or another call's) "
    "was still running when this call had to answer within its time budget (`call-budget`); "
    "that check syncs what changed, and the next call sees it"
)


class Writes(Base):
    """Bring the index to the work tree, on demand or before a read (see `KnowledgeBase`)."""

    def ingest(
        self,
        targets: Sequence[Path] | None = None,
        *,
        progress: Progress | None = None,
        warn: Warn | None = None,
        keep_documents: bool = False,
        rebuild: bool = False,
        digest: Digest | None = None,
    ) -> IngestReport:
        """Index the Markdown under `targets` (default: the whole work tree); creates the index.

        With `rebuild`, a new index is built from nothing and replaces the file (and its
        -wal and -shm): the recovery from a corrupt index.

        The index then holds exactly those files: `ingest docs/` followed by `ingest` (the
        root) re-uses every unchanged document instead of duplicating it. Returns one result
        per file seen (ingested, unchanged, skipped, removed or error). `keep_documents`
        keeps each parsed `Document` in the report; `digest`, what it returns for each,
        computed in the parse workers (the lint summary's first half, #32).

        Raises:
            UsageError: a target does not exist, lies outside the work tree or is ignored
                (it would empty the index of every other page), or the index
                named by `db` is another checkout's that is still there (`rebuild` replaces
                it: `index.home.check_takeover`).
            WorkerError: a parsing process failed; nothing was written.
            DatabaseError: the index cannot be written.
        """
        from kenso_git.index.build import run_index
        from kenso_git.repo.targets import index_scope

        scope = index_scope(self.workspace, self.settings, targets)
        self._check_owner_before_write(rebuild=rebuild)
        from kenso_git.store.claim import check_file

        check_file(self.db_path, self._tracked)  # never into, nor over, what holds something else
        if not self.owned and not rebuild:
            from kenso_git.index.home import check_takeover

            check_takeover(self.db_path, self.workspace)
        return run_index(
            self.workspace,
            self.settings,
            self.db_path,
            scope=scope,
            progress=progress,
            warn=warn,
            head=self._head(),
            keep_documents=keep_documents,
            digest=digest,
            rebuild=rebuild,
            verify=True,  # an explicit full run: worth reading every page to catch damage
        )

    def sync(
        self,
        *,
        paths: Sequence[str] | None = None,
        progress: Progress | None = None,
        warn: Warn | None = None,
        hand_off: float | None = None,
        create: bool = True,
        early: EarlyStatus | None = None,
    ) -> IngestReport:
        """Bring the index to the state of the work tree, within the scope last ingested.

        `paths` (root-relative) limits the look to files a git operation changed; every
        other file is trusted to be as the index last saw it. Creates the index when there
        is none (as `ingest` of the whole work tree would), unless not `create` (a query's
        sync: NoIndexError). `early`: the first `git status`, started by the caller
        (`gitstatus.start_status`); it is stopped here if the run does not take it.

        Raises:
            WorkerError: a parsing process failed; nothing was written.
            DatabaseError: the index cannot be written.
        """
        from kenso_git.index.build import run_index

        if self.lost_root is not None:
            if early is not None:
                early.discard()
            from kenso_git.index.home import lost_error

            raise lost_error(self.lost_root, self.db_path)
        head = self._head()
        if early is None and paths is None and hand_off is None:
            from kenso_git.repo import gitstatus  # a full sync someone waits for: start git now

            early = gitstatus.start_status(self.workspace, head=head)
        try:
            self._check_owner_before_write()
            if not self.owned:  # never into a file named by --db that holds something else
                from kenso_git.store.claim import check_file

                check_file(self.db_path, self._tracked)
            with self._turn(hand_off) as left:
                return run_index(
                    self.workspace,
                    self.settings,
                    self.db_path,
                    scope=None,
                    progress=progress,
                    warn=warn,
                    head=head,
                    only=paths,
                    hand_off=left,
                    early=early,
                    create=create,
                )
        finally:
            if early is not None:
                early.discard()

    def refresh(self) -> None:
        """Sync what the work tree changed since the index last looked (`query-sync`).

        Runs before every search and document read (not before `state()`, which reports
        what the index holds); never creates an index. Sets `freshness`: stale with the
        reason when the change was too large for a query or the sync failed. The first
        check takes the `git status` handed over by `start_early` (if still usable).
        """
        early, self._early = self._early, None
        self._refresh(early)

    def fresh_read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """What `fn` returns in one read transaction of the index `refresh` found fresh.

        Where the check asks git about the whole tree (its `git status` is half of a search's
        time on the docs corpus), git runs while `fn` reads: the answer stands unless some
        writer committed between the read's start and the check's end (`PRAGMA
        data_version`: the check synced a change, or another process did), and then `fn`
        reads again. Elsewhere (a status handed over by `start_early`, the watcher vouching,
        another check running, a scoped index, no git) the check runs first, as `refresh`.

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        vouched = self._quiet_vouches()  # made after a check: `_early` was taken then
        if vouched is not None:
            self.freshness = vouched  # nothing changed since the check that found it fresh
            return self.read(fn)
        # what the watch saw is read before git starts: a save after git looked must
        # leave the next query checking (`_refresh`)
        watch = self._quiet_watch()
        token = None if watch is None else watch.before_check(self.settings)
        started = self._status_beside_read()
        if started is None:
            self.refresh()
            return self.read(fn)
        from kenso_git.store.connection import data_version

        early, before = started
        try:
            result = self.read(fn)
        except BaseException:
            early.discard()
            raise
        self._refresh(early, token)  # takes `early` over
        if data_version(self._reader()) != before:
            result = self.read(fn)
        return result

    def _status_beside_read(self) -> tuple[EarlyStatus, int] | None:
        """A `git status` of the whole tree started now for `fresh_read`, where the check
        would ask git for exactly that, and the index's `data_version` before it; None: the
        check runs before the read."""
        settings = self.settings
        if self._early is not None or not settings.query_sync or self.lost_root is not None:
            return None
        if not self.workspace.is_git:
            return None
        if self._watcher_vouches():
            return None
        with self._checks:
            if self._checks_started != self._checks_done:
                return None  # a check is running: this call waits for the next one anyway
        import sqlite3

        from kenso_git.errors import KensoError
        from kenso_git.index.gitprobe import whole_tree
        from kenso_git.store.connection import data_version
        from kenso_git.store.meta import meta_scope
        from kenso_git.store.meta import read_value
        from kenso_git.store.schema import META_SCOPE

        try:
            conn = self._reader()
            before = data_version(conn)
            raw = read_value(conn, META_SCOPE)
            scope = meta_scope({} if raw is None else {META_SCOPE: raw})
        except (KensoError, sqlite3.Error, ValueError):
            return None  # no index, or one that cannot be read: the read says which
        if not whole_tree(scope):
            return None
        from kenso_git.repo.gitstatus import start_status

        early = start_status(self.workspace, head=self._head())
        return None if early is None else (early, before)

    def _watcher_vouches(self) -> bool:
        """Whether a watcher of this process vouches for the index (`WatchSeq.vouches`)
        where a query's own check is costly (`VOUCH_AFTER_S`, as the last check measured):
        where it is cheap, the check runs, so that a save younger than its events' arrival
        is never answered from before it."""
        seq, cost = self.watch_seq, self._check_s
        if seq is None or cost is None:
            return False
        from kenso_git.index import watchseq

        return cost >= watchseq.VOUCH_AFTER_S and seq.vouches()

    def _quiet_vouches(self) -> Freshness | None:
        """What the last check found, while nothing has changed since it (`index.quiet`)."""
        watch = self._quiet
        return None if watch is None else watch.vouches(self.settings)

    def query_watch(self, *, one_shot: bool = False) -> WatchReport:
        """Whether this process's inotify watch vouches for the query-time check now
        (`index.quiet`: armed, arming, off or aside), and if not, why. `one_shot`: the
        caller runs one check (a CLI command) and will never arm one."""
        from kenso_git.index.quiet import report_of

        root = self.workspace.root
        return report_of(self._quiet, self.settings, root, one_shot=one_shot)

    def _quiet_watch(self) -> QuietWatch | None:
        """The inotify watch that lets later checks be skipped, made at this process's second
        check (a one-shot command runs one); None outside Linux's local file systems."""
        if not self.settings.query_watch:
            return None
        with self._checks:  # one watch, whichever thread asks first
            if self._quiet is None and self._checks_done >= 1:
                import weakref

                from kenso_git.index.quiet import QuietWatch

                self._quiet = QuietWatch(self.workspace, self.settings, self.db_path)
                weakref.finalize(self, self._quiet.close)
            return self._quiet

    def _writer_done(self) -> bool:
        """Wait for another writer of the index syncing a change too large for a query:
        True once one was writing and finished (`QUERY_WRITER_WAIT_S` at most), or this
        process's watcher synced what it was told. A writer about to start (the watcher's
        events not arrived yet, a hook's detached sync starting) gets `WRITER_START_S`. In a
        tool call, neither wait outlasts what its budget can spare (`wait_to_answer`)."""
        from kenso_git.errors import KensoError
        from kenso_git.index.lock import LOCK_FILE
        from kenso_git.index.lock import QUERY_WRITER_WAIT_S
        from kenso_git.index.lock import WRITER_START_S
        from kenso_git.index.lock import held
        from kenso_git.index.lock import wait_for_release
        from kenso_git.store.budget import wait_to_answer

        lock = self.db_path.parent / LOCK_FILE
        started = time.monotonic()
        seq = self.watch_seq
        limit = wait_to_answer(QUERY_WRITER_WAIT_S)  # in a tool call: what it can spare
        limit = QUERY_WRITER_WAIT_S if limit is None else limit
        try:
            while True:
                waited = time.monotonic() - started
                if held(lock):
                    return wait_for_release(lock, limit - waited)
                if seq is not None and waited > 0 and seq.vouches():
                    return True  # the watcher synced every batch since git changed the tree
                if waited >= min(WRITER_START_S, limit):
                    return False
                time.sleep(0.02)
        except KensoError:
            return False  # a folder no lock can be taken in (read-only): answer flagged stale

    def start_early(self, early: EarlyStatus | None) -> None:
        """Hand the first freshness check a `git status` of the whole tree that the caller
        started when its process began (`gitstatus.start_status`, entry.py): git runs while the
        search modules load. Left unused (another scope, HEAD moved, no check), it is
        stopped unread."""
        self._early = early

    def _refresh(self, early: EarlyStatus | None, token: QuietToken | None = None) -> None:
        """The query-time check (see `refresh`). `token`: what the inotify watch saw before
        `early` started (`QuietWatch.before_check`), taken by the caller that started it; a
        check on a status started earlier than what the watch saw must not vouch for later
        queries, so without an `early` the watch is read here, before git starts. Takes
        `early` over: it is stopped unless a check still reads it (which then stops it)."""
        handed = False
        try:
            handed = self._check_or_wait(early, token)
        finally:
            if early is not None and not handed:
                early.discard()

    def _check_or_wait(self, early: EarlyStatus | None, token: QuietToken | None) -> bool:
        """`_refresh`; True once `early` is handed to a check that runs on after the call."""
        if not self.settings.query_sync or not self.db_path.exists():
            return False
        if self.lost_root is not None:
            from kenso_git.index.home import lost_reason
            from kenso_git.index.refresh import Freshness

            self.freshness = Freshness(True, lost_reason(self.lost_root))
            return False
        if self._watcher_vouches():
            from kenso_git.index.refresh import FRESH

            self.freshness = FRESH  # the watcher has synced every change it was told of
            return False
        quiet = self._quiet_vouches()
        if quiet is not None:
            self.freshness = quiet  # nothing changed since the check that found it fresh
            return False
        from kenso_git.store.budget import wait_to_answer

        with self._checks:
            ticket = self._checks_started + 1  # the next check to start is fresh enough
            while self._checks_done < ticket:
                if self._checks_started == self._checks_done:  # none running: run it
                    self._checks_started += 1
                    number = self._checks_started
                    break
                # another thread's check (the server's start-up check, another call's) is
                # waited for no longer than this call's budget allows: past that, the
                # answer is the index as it is, flagged stale, and that check syncs it
                wait = wait_to_answer(None)
                if wait is not None and wait <= 0:
                    from kenso_git.index.refresh import Freshness

                    self.freshness = Freshness(True, CHECK_RUNNING)
                    return False
                self._checks.wait(wait)
            else:
                return False  # a check that started after this call arrived has answered it
        spare = wait_to_answer(None)
        if spare is None:  # not a tool call: the check runs here, as long as it takes
            self.freshness = self._check(number, early, token, None)
            return False
        # a tool call: its own check (git status, a walk) cannot be interrupted, so it runs on
        # the knowledge base's check thread, waited for no longer than the budget can spare
        from concurrent.futures import TimeoutError as FutureTimeout

        from kenso_git.api.checker import CHECK_SLOW
        from kenso_git.api.checker import CheckThread
        from kenso_git.store.budget import handover_deadline

        with self._checks:
            if self._check_thread is None:
                self._check_thread = CheckThread()
            worker = self._check_thread
        until = handover_deadline()  # when its waits (another writer, the lock) end
        try:
            future = worker.submit(lambda: self._check(number, early, token, until))
        except RuntimeError:  # no thread could be started: the check runs here
            self.freshness = self._check(number, early, token, None)
            return False
        try:
            self.freshness = future.result(timeout=spare)
        except FutureTimeout:
            from kenso_git.index.refresh import Freshness

            self.freshness = Freshness(True, CHECK_SLOW)
        return True

    def _check(
        self,
        number: int,
        early: EarlyStatus | None,
        token: QuietToken | None,
        until: float | None,
    ) -> Freshness:
        """Run the check of ticket `number` (see `_refresh`), its waits ending by `until` (a
        call's `handover_deadline`: `budget.answer_by`); stops `early` after it."""
        from kenso_git.index.lock import QUERY_WAIT_S
        from kenso_git.index.refresh import ensure_fresh
        from kenso_git.store.budget import answer_by

        try:
            with answer_by(until):
                watch = self._quiet_watch()
                if early is None and watch is not None:
                    token = watch.before_check(self.settings)
                fresh = ensure_fresh(
                    self.workspace,
                    self.settings,
                    self.read,
                    self._files_snapshot,
                    # A query waits a moment at most for another writer: past that the
                    # writer syncs this change too, and the answer is flagged stale.
                    lambda paths: self.sync(paths=paths, hand_off=QUERY_WAIT_S, create=False),
                    early,
                    self._writer_done,
                )
                if fresh.checked_s is not None:
                    self._check_s = fresh.checked_s
                if watch is not None:
                    watch.settle(token, fresh)
                return fresh
        finally:
            if early is not None:
                early.discard()
            with self._checks:
                self._checks_done = number
                self._checks.notify_all()

    @contextlib.contextmanager
    def _turn(self, hand_off: float | None) -> Iterator[float | None]:
        """Wait for this process's other writers (`hand_off` seconds at most, None: as long
        as they take), and never past the budget of the tool call running on this thread;
        yields what is left of `hand_off` for the file lock (0 when the wait ran out: the
        sync is then handed to the holder by the rerun mark, as across processes).

        Raises:
            IndexLockedError: no `hand_off`, and the call's budget ran out first.
        """
        from kenso_git.store.budget import wait_left

        started = time.monotonic()
        wait = wait_left(hand_off)
        with self._turns:
            self.writers_waiting += 1
        try:
            got = self._writer.acquire(timeout=-1 if wait is None else wait)
        finally:
            with self._turns:
                self.writers_waiting -= 1
        if not got and hand_off is None:
            from kenso_git.errors import IndexLockedError
            from kenso_git.index.lock import LOCK_FILE

            raise IndexLockedError(
                "another writer of this server held the index's write lock for what the "
                "call's budget had left",
                path=str(self.db_path.parent / LOCK_FILE),
                hint="a sync of this server (the watcher's, another call's) is running; "
                "try again when it ends",
            )
        try:
            if hand_off is None or wait is None or not got:
                yield None if hand_off is None else 0.0
            else:
                yield max(0.0, wait - (time.monotonic() - started))
        finally:
            if got:
                self._writer.release()

    def _tracked(self, path: Path) -> bool:
        """Whether git tracks the file at `path` (asked of an empty file named by --db)."""
        from kenso_git.repo.git import tracks_files_in

        return self.workspace.is_git and tracks_files_in(self.workspace, path)
