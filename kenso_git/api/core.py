"""The core of the library API (`kenso_git.kb.KnowledgeBase`): where the index is, how it
is read, and the freshness check every read runs first.

Reads open per-thread read-only connections and run each call in one read transaction, so a
call sees either the index before a concurrent sync or after it, never a mix; nothing is
cached across calls beyond what is keyed on the index's write generation.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Self
from typing import TypeVar

from kenso_git.config import Settings
from kenso_git.config import load_settings
from kenso_git.errors import DatabaseError
from kenso_git.errors import NoIndexError
from kenso_git.repo import statusindex
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import find_workspace
from kenso_git.store.connection import READ_BUSY_MS
from kenso_git.store.connection import data_version
from kenso_git.store.connection import file_identity
from kenso_git.store.connection import open_current_reader
from kenso_git.store.connection import snapshot
from kenso_git.store.faults import database_failure
from kenso_git.store.files import load_files
from kenso_git.store.meta import read_meta
from kenso_git.store.owner import check_owner

if TYPE_CHECKING:
    from kenso_git.api.checker import CheckThread
    from kenso_git.index.home import Opened
    from kenso_git.index.quiet import QuietWatch
    from kenso_git.index.refresh import Freshness
    from kenso_git.index.watchseq import WatchSeq
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.repo.scope import SameFile
    from kenso_git.search.ranked.synonyms import Synonyms
    from kenso_git.store.files import FileRow

T = TypeVar("T")
PathFilter = Callable[[str], bool]
# a gate's identity check reads one files row per path, then all of them past this many
BULK_INODES_AFTER = 256


class Base:
    """What every part of `KnowledgeBase` stands on: the work tree, its settings, the index
    file and the per-thread read connections (the class users read about is `KnowledgeBase`,
    kb.py)."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings,
        db_path: Path,
        *,
        owned: bool = False,
        lost_root: str | None = None,
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.db_path = db_path
        self.owned = owned  # found by the default rule: it must record this root (store.owner)
        # the root the index records when it is no longer there: nothing syncs it (#26)
        self.lost_root = lost_root
        self._local = threading.local()
        # Concurrent tool calls share freshness checks: a call waits for the first check that
        # starts after it arrived (one in flight may have looked before its edit), and one
        # check answers every call that was waiting for it (#13: 40 hostile calls queued
        # 40 checks in front of a normal one).
        self._checks = threading.Condition()
        self._checks_started = 0
        self._checks_done = 0
        self.freshness: Freshness | None = None  # of the last query-time check; None: not run
        # This process's writers (the watcher, tool threads) take turns here before the file
        # lock: a query's sync that finds the watcher syncing is woken when it ends, instead
        # of polling the lock and leaving the "rerun" mark, which made the holder sync the
        # whole scope once more before either could answer.
        self._writer = threading.RLock()
        self._turns = threading.Lock()
        self.writers_waiting = 0  # threads waiting for their turn to write (tests, health)
        self._early: EarlyStatus | None = None  # see start_early
        # where a tool call's own check runs, waited for within its budget (api/checker.py)
        self._check_thread: CheckThread[Freshness] | None = None
        # set by a watcher of this process: while it vouches, a query skips its check (#32)
        self.watch_seq: WatchSeq | None = None
        self._check_s: float | None = None  # what the last query-time check took (seconds)
        # from the second check on: later checks skipped while nothing changed (index/quiet)
        self._quiet: QuietWatch | None = None

    @classmethod
    def open(
        cls, start: Path | None = None, *, db: str | None = None, rooting: bool = False
    ) -> Self:
        """The knowledge base of the work tree around `start`; never creates anything.

        Raises:
            UsageError: `start` does not exist.
            ConfigError: the configuration is malformed.
        """
        return cls.of_workspace(find_workspace(start), db=db, rooting=rooting)

    @classmethod
    def of_workspace(
        cls, workspace: Workspace, *, db: str | None = None, rooting: bool = False
    ) -> Self:
        """The knowledge base of an already found work tree (no second discovery).

        An index named by `db` (or `KENSO_DATABASE_URL`, or the global index) is opened at
        the root it records, wherever `workspace` is: readers and syncs never re-root it.
        Only `rooting` (what `ingest` passes) opens it at `workspace`, which its next write
        then records.

        Raises:
            ConfigError: the configuration is malformed.
        """
        from kenso_git.index.home import open_at

        return cls.of_opened(open_at(workspace, db, rooting=rooting))

    @classmethod
    def of_opened(cls, opened: Opened, settings: Settings | None = None) -> Self:
        """The knowledge base of an index already located (`index.home.open_at`), with the
        settings of its work tree when the caller read them already.

        Raises:
            ConfigError: the configuration is malformed.
        """
        path, owned, (workspace, lost) = opened
        if settings is None:
            settings = load_settings(workspace.root)
        if workspace.git_dir is not None:  # its statuses' copy of git's index lives there
            statusindex.place(str(workspace.git_dir), str(path.parent))
        return cls(workspace, settings, path, owned=owned, lost_root=lost)

    # -- reads ---------------------------------------------------------------------------

    def has_index(self) -> bool:
        """Whether an index exists and can be opened (opens this thread's connection).

        Raises:
            DatabaseError: the file exists but is corrupt or of a newer schema.
        """
        try:
            self._reader()
        except NoIndexError:
            return False
        return True

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and file_identity(self.db_path) != getattr(
            self._local, "identity", None
        ):
            # `rm -rf .kenso && ingest` or `ingest --rebuild` replaced the file: this
            # connection still reads the old one, which no sync will ever touch again.
            self.close()
            conn = None
        if conn is None:
            root, db_path = self.workspace.root, self.db_path
            conn, identity = open_current_reader(
                db_path, check=(lambda c: check_owner(c, root, db_path)) if self.owned else None
            )
            self._local.conn = conn
            self._local.identity = identity
        return conn

    def _check_owner_before_write(self, *, rebuild: bool = False) -> None:
        # A rebuild replaces the file whatever it records; a file that cannot be read records
        # no root we could check, and the writer names the real cause (corrupt, read-only...).
        if self.owned and not rebuild and self.db_path.is_file():
            with contextlib.suppress(NoIndexError, DatabaseError):  # empty: the write creates it
                self._reader()

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """What `fn` returns, run inside one read transaction on this thread's connection.

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read (corrupt, locked too long, newer schema).
        """
        conn = self._reader()
        self._local.reads = self.reads() + 1
        try:
            with snapshot(conn):
                return fn(conn)
        except sqlite3.DatabaseError as err:
            if isinstance(err, sqlite3.OperationalError) and "locked" not in str(err):
                raise  # a query bug, not a database problem: keep the traceback
            raise database_failure(self.db_path, err, waited_s=READ_BUSY_MS / 1000) from err

    def close(self) -> None:
        """Close this thread's connection; the next read opens a new one."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            self._local.files = None

    def _files_snapshot(self) -> tuple[dict[str, str], dict[str, FileRow]]:
        """The meta and files rows, re-read only when another connection wrote the index
        (`PRAGMA data_version`): the check before each query need not load every row."""
        conn = self._reader()
        try:
            key = (id(conn), data_version(conn))
        except sqlite3.DatabaseError as err:
            raise database_failure(self.db_path, err, waited_s=READ_BUSY_MS / 1000) from err
        cached = getattr(self._local, "files", None)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        meta, files = self.read(lambda conn: (read_meta(conn), load_files(conn)))
        self._local.files = (key, meta, files)
        return meta, files

    def _synonyms(self) -> Synonyms | None:
        from kenso_git.search.ranked.synonyms import load_synonyms

        configured = None if os.environ.get("KENSO_SYNONYMS_PATH") else self.settings.synonyms_path
        return load_synonyms(self.workspace.root, configured)

    def _stat(self, path: str) -> os.stat_result | None:
        try:
            return os.stat(os.path.join(self.workspace.root, path))
        except OSError:
            return None

    def same_file(self) -> SameFile | None:
        """For one call's scope gate: whether the index's text of a path was read from the
        file `st` describes (its inode), so a hit never carries another file's text (#27).
        Reads on this thread's connection, inside the caller's read transaction: a path at
        a time, then, past `BULK_INODES_AFTER` paths, every indexed inode at once. What it
        learnt is dropped when the call reads again (`reads`, see `Writes.fresh_read`).

        None when the index's root is gone or another repository now (`lost_root`): no
        file at hand is the index's, and the answer comes from the index as it is, flagged
        stale, as on the command line; the gate then judges each path by its name."""
        return _InodeCheck(self) if self.lost_root is None else None

    def rewritten_same(self, conn: sqlite3.Connection, path: str, st: os.stat_result) -> bool:
        """Whether the file `st` describes, another inode than the one the index read
        `path`'s text from, holds the very bytes of that text (written again unchanged:
        `sed -i`, an editor's atomic save; `git status` lists no such file, so no check
        syncs it). Then its new stat data is recorded, so the next call trusts it again
        without reading it: a read may write its own index, unless the query-time check
        is off (best effort: a writer holding the lock, or a read-only index, leaves it
        to the next call). A file of other bytes, or a link swapped in, is never the row's.
        """
        import time

        from kenso_git.index.rewritten import restat
        from kenso_git.index.rewritten import rewritten_same

        row = load_files(conn, [path]).get(path)
        seen_ns = time.time_ns()  # before the read: a write after it is a later ctime
        key = rewritten_same(self.workspace.root, path, st, row)
        if key is None or row is None:
            return False
        if self.settings.query_sync and self.lost_root is None:
            restat(self.db_path, row, key, seen_ns)
        return True

    def thread_connection(self) -> sqlite3.Connection:
        """This thread's connection (opened when it has none)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        return conn if conn is not None else self._reader()

    def reads(self) -> int:
        """How many read transactions this thread has begun (`read`): a verdict memoised
        in one holds for that one only."""
        return int(getattr(self._local, "reads", 0))

    def _head(self) -> str | None:
        from kenso_git.index import freshness

        return freshness.head_commit(self.workspace)


class _InodeCheck:
    """`Base.same_file`'s check: the index's inode of each path asked, one at a time, then
    all at once; forgotten when the thread begins another read transaction."""

    __slots__ = ("_asked", "_base", "_known", "_read")

    def __init__(self, base: Base) -> None:
        self._base = base
        self._known: dict[str, int] | None = None
        self._asked = 0
        self._read = base.reads()

    def reads(self) -> int:
        """The read transaction the verdicts are for (see `Base.reads`)."""
        return self._base.reads()

    def __call__(self, path: str, st: os.stat_result) -> bool:
        from kenso_git.store.files import indexed_inode
        from kenso_git.store.files import indexed_inodes

        now = self._base.reads()
        if now != self._read:
            self._known, self._asked, self._read = None, 0, now
        conn = self._base.thread_connection()
        if self._known is None:
            self._asked += 1
            if self._asked > BULK_INODES_AFTER:
                self._known = indexed_inodes(conn)
        inode = indexed_inode(conn, path) if self._known is None else self._known.get(path)
        if inode is None:
            return False  # not indexed: no text of the index is this file's
        return inode == st.st_ino or self._base.rewritten_same(conn, path, st)
