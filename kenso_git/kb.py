"""The library API that the CLI, the git hooks and the MCP server share.

`KnowledgeBase` ties a work tree, its settings and its index database together. Reads
open per-thread read-only connections and run each call in one read transaction, so a
call sees either the index before a concurrent sync or after it, never a mix; nothing is
cached across calls beyond what is keyed on the index's write generation.

Reads that find no index raise `NoIndexError`; kenso's contract errors (an empty query, no
queries, an unknown document) are raised as `KensoError`s too, never returned as payloads.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from typing import TypeVar
from typing import cast

from kenso_git.config import Settings
from kenso_git.config import load_settings
from kenso_git.errors import DatabaseError
from kenso_git.errors import EmptyQueryError
from kenso_git.errors import NoIndexError
from kenso_git.records import NamedTuple
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import find_workspace
from kenso_git.store import schema
from kenso_git.store import totals
from kenso_git.store.connection import READ_BUSY_MS
from kenso_git.store.connection import file_identity
from kenso_git.store.connection import open_current_reader
from kenso_git.store.connection import snapshot
from kenso_git.store.faults import database_failure
from kenso_git.store.files import load_files
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta
from kenso_git.store.owner import check_owner

if TYPE_CHECKING:
    from kenso_git.index.build import IngestReport
    from kenso_git.index.build import Progress
    from kenso_git.index.build import Warn
    from kenso_git.index.home import Opened
    from kenso_git.index.refresh import Freshness
    from kenso_git.index.watchseq import WatchSeq
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.search.lang.agent import SearchRequest
    from kenso_git.search.ranked.cascade import SearchResult
    from kenso_git.search.ranked.synonyms import Synonyms
    from kenso_git.search.regex.regex_search import RegexRequest
    from kenso_git.search.results import AgentPage
    from kenso_git.search.results import DocResult
    from kenso_git.search.results import IndexStateDict
    from kenso_git.search.results import RelatedPage
    from kenso_git.search.results import RelatedRow
    from kenso_git.search.results import SearchDocsResult
    from kenso_git.search.results import SearchMultiResult
    from kenso_git.store.doccommits import LastCommit
    from kenso_git.store.files import FileRow
    from kenso_git.text.parse import Document

T = TypeVar("T")
PathFilter = Callable[[str], bool]


class IndexState(NamedTuple):
    """Counts, size and freshness of the index."""

    root: str
    db_path: str
    documents: int
    chunks: int
    links: int
    db_bytes: int
    content_bytes: int
    schema_version: int
    as_of: str | None  # HEAD commit at the last sync (None outside git or on an unborn branch)
    synced_at: float | None  # Unix time of the last sync
    stale: bool | None  # the work tree no longer matches the index (None: not checked)
    worktree_differs: bool | None  # at the last sync, the docs differed from HEAD's
    scope: list[str]
    categories: list[tuple[str | None, int, int]]  # (category, documents, chunks)

    def to_dict(self) -> IndexStateDict:
        """The state as JSON-ready data (what `stats --json` prints), fields in order."""
        data: dict[str, object] = self._asdict()  # the fields, in declaration order
        data["categories"] = [
            {"category": c, "documents": d, "chunks": k} for c, d, k in self.categories
        ]
        return cast("IndexStateDict", data)


# a gate's identity check reads one files row per path, then all of them past this many
BULK_INODES_AFTER = 256


class _Snapshot(NamedTuple):
    """What `state()` reads, all in one read transaction (one committed index)."""

    counts: tuple[int, int, int, int, int]
    meta: dict[str, str]
    categories: list[tuple[str | None, int, int]]
    files: dict[str, FileRow]


class KnowledgeBase:
    """One repository's docs index: search it, read it, keep it fresh.

    Open one with `KnowledgeBase.open()`; opening never creates an index (`ingest` does).
    Reads raise `NoIndexError` when there is no index yet and `DatabaseError` when it
    cannot be read. The payload methods (`search_docs`, `search_multi`, `get_doc`,
    `get_related`) return kenso's JSON shapes (`kenso_git.search.results`). Safe to share
    between threads: each thread reads on its own connection.
    """

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
        # set by a watcher of this process: while it vouches, a query skips its check (#32)
        self.watch_seq: WatchSeq | None = None

    @classmethod
    def open(
        cls, start: Path | None = None, *, db: str | None = None, rooting: bool = False
    ) -> KnowledgeBase:
        """The knowledge base of the work tree around `start`; never creates anything.

        Raises:
            UsageError: `start` does not exist.
            ConfigError: the configuration is malformed.
        """
        return cls.of_workspace(find_workspace(start), db=db, rooting=rooting)

    @classmethod
    def of_workspace(
        cls, workspace: Workspace, *, db: str | None = None, rooting: bool = False
    ) -> KnowledgeBase:
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
    def of_opened(cls, opened: Opened, settings: Settings | None = None) -> KnowledgeBase:
        """The knowledge base of an index already located (`index.home.open_at`), with the
        settings of its work tree when the caller read them already.

        Raises:
            ConfigError: the configuration is malformed.
        """
        path, owned, (workspace, lost) = opened
        if settings is None:
            settings = load_settings(workspace.root)
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

    def refresh(self) -> None:
        """Sync what the work tree changed since the index last looked (`query-sync`).

        Runs before every search and document read (not before `state()`, which reports
        what the index holds); never creates an index. Sets `freshness`: stale with the
        reason when the change was too large for a query or the sync failed. The first
        check takes the `git status` handed over by `start_early` (if still usable).
        """
        early, self._early = self._early, None
        try:
            self._refresh(early)
        finally:
            if early is not None:
                early.discard()

    def start_early(self, early: EarlyStatus | None) -> None:
        """Hand the first freshness check a `git status` of the whole tree that the caller
        started when its process began (`gitstatus.start_status`, entry.py): git runs while the
        search modules load. Left unused (another scope, HEAD moved, no check), it is
        stopped unread."""
        self._early = early

    def _refresh(self, early: EarlyStatus | None) -> None:
        if not self.settings.query_sync or not self.db_path.exists():
            return
        if self.lost_root is not None:
            from kenso_git.index.home import lost_reason
            from kenso_git.index.refresh import Freshness

            self.freshness = Freshness(True, lost_reason(self.lost_root))
            return
        if self.watch_seq is not None and self.watch_seq.vouches():
            from kenso_git.index.refresh import FRESH

            self.freshness = FRESH  # the watcher has synced every change it was told of
            return
        from kenso_git.index.lock import QUERY_WAIT_S
        from kenso_git.index.refresh import ensure_fresh

        with self._checks:
            ticket = self._checks_started + 1  # the next check to start is fresh enough
            while self._checks_done < ticket:
                if self._checks_started == self._checks_done:  # none running: run it
                    self._checks_started += 1
                    number = self._checks_started
                    break
                self._checks.wait()
            else:
                return  # a check that started after this call arrived has answered it
        try:
            self.freshness = ensure_fresh(
                self.workspace,
                self.settings,
                self.read,
                self._files_snapshot,
                # A query waits a moment at most for another writer: past that the
                # writer syncs this change too, and the answer is flagged stale.
                lambda paths: self.sync(paths=paths, hand_off=QUERY_WAIT_S, create=False),
                early,
            )
        finally:
            with self._checks:
                self._checks_done = number
                self._checks.notify_all()

    def _files_snapshot(self) -> tuple[dict[str, str], dict[str, FileRow]]:
        """The meta and files rows, re-read only when another connection wrote the index
        (`PRAGMA data_version`): the check before each query need not load every row."""
        conn = self._reader()
        try:
            key = (id(conn), conn.execute("PRAGMA data_version").fetchone()[0])
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

    def search(
        self,
        query: str,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchResult:
        """The ranked hits for `query` (limit clamped to `search-limit-max`); blank: none.

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import cascade as search

        limit = max(1, min(limit, self.settings.search_limit_max))
        synonyms = self._synonyms()
        self.refresh()
        return self.read(
            lambda conn: search.search(
                conn,
                query,
                category=category,
                limit=limit,
                synonyms=synonyms,
                path_filter=path_filter,
            )
        )

    def search_docs(
        self,
        query: str,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchDocsResult:
        """The `search_docs` tool's JSON payload (also what `search --json` prints): the
        hits, or `{"corrected_query", "original_query", "results"}` after a typo fix.

        Raises:
            EmptyQueryError: the query is blank (checked before the index is opened).
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import payload

        if not query or not query.strip():
            raise EmptyQueryError()
        result = self.search(query, category=category, limit=limit, path_filter=path_filter)
        return payload.search_docs_payload(result, preview_chars=self.settings.preview_chars)

    def search_multi(
        self,
        queries: Sequence[str] | None,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchMultiResult:
        """The `search_multi` payload: up to five queries fused by rank, blank ones dropped;
        `{"corrections", "results"}` when some query was corrected.

        Raises:
            NoIndexError: there is no index.
            NoQueriesError: `queries` is empty or None (checked after the index is opened).
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import payload

        synonyms = self._synonyms()
        self.refresh()
        return self.read(
            lambda conn: payload.search_multi_payload(
                conn,
                queries,
                category=category,
                limit=limit,
                limit_max=self.settings.search_limit_max,
                preview_chars=self.settings.preview_chars,
                synonyms=synonyms,
                path_filter=path_filter,
            )
        )

    def last_commits(self, paths: Collection[str]) -> dict[str, LastCommit]:
        """path -> the commit that last changed the document as indexed (or that it is
        uncommitted), kept by every writer (#29); paths without a record are absent."""
        from kenso_git.store import doccommits

        return self.read(lambda conn: doccommits.read(conn, paths))

    def get_doc(
        self,
        path: str,
        *,
        max_length: int | None = None,
        file_stat: Callable[[str], os.stat_result | None] | None = None,
    ) -> DocResult:
        """The `get_doc` payload: the stored document at `path`, its content cut to
        `max_length` characters (plus `...` and `truncated: true`) when longer.

        The stored text is served only while the file on disk is the one it was read from:
        `file_stat` looks it up (the scope gate's `Scope.file_stat`, which never follows a
        link it did not approve); by default `os.stat` of the path.

        Raises:
            DocumentNotFoundError: the index holds no document at `path`, or the file is gone.
            KensoError: the file changed since it was indexed and cannot be synced now.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.errors import DocumentNotFoundError
        from kenso_git.errors import KensoError
        from kenso_git.index.refresh import disk_state
        from kenso_git.search.ranked import payload

        self.refresh()
        for attempt in range(2):
            doc, row = self.read(
                lambda conn: (
                    payload.get_doc_payload(conn, path, max_length=max_length),
                    load_files(conn, [path]).get(path),
                )
            )
            # The file may have changed after the check (or with the check off): the stored
            # text is served only while the file on disk is still the one indexed.
            on_disk = disk_state(row, (file_stat or self._stat)(path))
            if on_disk == "same":
                return doc
            if attempt or not self.settings.query_sync:
                break
            self.sync(paths=[path], create=False)
        if on_disk == "gone":
            raise DocumentNotFoundError(path)
        raise KensoError(
            f"{path} changed on disk since it was indexed",
            hint="run `kenso-git sync` (or turn query-sync on), then read it again",
            path=path,
        )

    def _stat(self, path: str) -> os.stat_result | None:
        try:
            return os.stat(os.path.join(self.workspace.root, path))
        except OSError:
            return None

    def same_file(self) -> Callable[[str, os.stat_result], bool]:
        """For one call's scope gate: whether the index's text of a path was read from the
        file `st` describes (its inode), so a hit never carries another file's text (#27).
        Reads on this thread's connection, inside the caller's read transaction: a path at
        a time, then, past `BULK_INODES_AFTER` paths, every indexed inode at once."""
        from kenso_git.store.files import indexed_inode
        from kenso_git.store.files import indexed_inodes

        known: dict[str, int] | None = None
        asked = 0

        def check(path: str, st: os.stat_result) -> bool:
            nonlocal known, asked
            conn: sqlite3.Connection = getattr(self._local, "conn", None) or self._reader()
            if known is None:
                asked += 1
                if asked <= BULK_INODES_AFTER:
                    return indexed_inode(conn, path) == st.st_ino
                known = indexed_inodes(conn)
            return known.get(path) == st.st_ino

        return check

    def get_related(
        self,
        path: str,
        *,
        depth: int = 1,
        relation_type: str | None = None,
        path_filter: PathFilter | None = None,
    ) -> list[RelatedRow]:
        """The `get_related` payload: documents linked to `path` up to `depth` hops (1-3),
        nearest first; an unknown path gives [].

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.graph import related

        self.refresh()
        return self.read(
            lambda conn: related.get_related(
                conn, path, depth=depth, relation_type=relation_type, path_filter=path_filter
            )
        )

    def find_related(
        self,
        path: str,
        *,
        page_size: int | None = None,
        cursor: str | None = None,
        path_filter: PathFilter | None = None,
    ) -> RelatedPage:
        """A page of the documents linked to or from `path` and its neighbours, with why.

        Raises:
            DocumentNotFoundError: the index holds no document at `path`.
            CursorError: the cursor is malformed, from another request or stale.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.graph import neighbours

        self.refresh()
        return self.read(
            lambda conn: neighbours.find_related(
                conn, path, page_size=page_size, cursor=cursor, path_filter=path_filter
            )
        )

    def agent_search(
        self, request: SearchRequest | RegexRequest, *, path_filter: PathFilter | None = None
    ) -> AgentPage:
        """One page of the agent surface's `search` (query language) or `regex_search`.

        Raises:
            QuerySyntaxError: the query does not parse (the message names the token).
            PatternError: a regular expression is too long or refused by RE2.
            CursorError: the cursor is malformed or from another request.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.lang import agent
        from kenso_git.search.regex import regex_search

        self.refresh()
        if isinstance(request, agent.SearchRequest):
            synonyms = self._synonyms()
            return self.read(
                lambda conn: agent.search(conn, request, path_filter=path_filter, synonyms=synonyms)
            )
        root, limit = self.workspace.root, self.settings.max_file_size
        return self.read(
            lambda conn: regex_search.regex_search(
                conn, request, root=root, max_bytes=limit, path_filter=path_filter
            )
        )

    def state(self, *, check_stale: bool = True) -> IndexState:
        """Counts, size and freshness. `check_stale` walks the work tree (a few ms).

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.index import freshness

        known = self._known_differs()
        snap = self.read(lambda conn: _state_snapshot(conn, with_files=check_stale))
        counts, meta = snap.counts, snap.meta
        scope = meta_scope(meta)
        stale = (
            freshness.is_stale(self.workspace, self.settings, meta, lambda: snap.files)
            if check_stale
            else None
        )
        synced = meta.get(schema.META_SYNCED_AT)
        return IndexState(
            root=str(self.workspace.root),
            db_path=str(self.db_path),
            documents=counts[0],
            chunks=counts[1],
            links=counts[2],
            db_bytes=_db_bytes(self.db_path),
            content_bytes=counts[3],
            schema_version=counts[4],
            as_of=meta.get(schema.META_HEAD) or None,
            synced_at=float(synced) if synced else None,
            stale=stale,
            worktree_differs=self._worktree_differs(meta, scope, snap.files, known),
            scope=scope,
            categories=snap.categories,
        )

    def _known_differs(self) -> bool | None:
        """Whether the docs differ from HEAD's, as the last query-time check's `git status`
        said (None: not known, or HEAD moved since)."""
        fresh = self.freshness
        if fresh is None or fresh.stale or fresh.differs is None:
            return None
        from kenso_git.index.freshness import head_commit

        return fresh.differs if fresh.head == head_commit(self.workspace) else None

    def _worktree_differs(
        self, meta: dict[str, str], scope: list[str], files: dict[str, FileRow], known: bool | None
    ) -> bool | None:
        """As recorded by the last full sync; when a hook's targeted sync left it open, as the
        last check's `git status` said (`known`), else worked out now (one `git ls-tree`
        and every files row, kept for this write generation and HEAD)."""
        recorded = meta.get(schema.META_WORKTREE_DIRTY)
        if recorded in ("0", "1"):
            return recorded == "1"
        if not self.workspace.is_git or recorded is None:
            return None
        if known is not None:
            return known
        from kenso_git.index.build import differs_from_head
        from kenso_git.index.freshness import head_commit

        key = (meta.get(schema.META_GENERATION), head_commit(self.workspace))
        cached: tuple[object, bool | None] | None = getattr(self, "_differs", None)
        if cached is None or cached[0] != key:
            rows = files or self.read(load_files)
            found = differs_from_head(self.workspace, self.settings, scope, rows)
            cached = self._differs = (key, found)
        return cached[1]

    # -- writes --------------------------------------------------------------------------

    def ingest(
        self,
        targets: Sequence[Path] | None = None,
        *,
        progress: Progress | None = None,
        warn: Warn | None = None,
        keep_documents: bool = False,
        rebuild: bool = False,
        digest: Callable[[Document], object] | None = None,
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
            UsageError: a target does not exist or lies outside the work tree.
            WorkerError: a parsing process failed; nothing was written.
            DatabaseError: the index cannot be written.
        """
        from kenso_git.index.build import run_index
        from kenso_git.repo.discover import scope_folders

        scope = scope_folders(self.workspace, targets) if targets else [""]
        self._check_owner_before_write(rebuild=rebuild)
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

    @contextlib.contextmanager
    def _turn(self, hand_off: float | None) -> Iterator[float | None]:
        """Wait for this process's other writers (`hand_off` seconds at most, None: as long
        as they take); yields what is left of `hand_off` for the file lock (0 when the wait
        ran out: the sync is then handed to the holder by the rerun mark, as across processes)."""
        started = time.monotonic()
        with self._turns:
            self.writers_waiting += 1
        try:
            got = self._writer.acquire(timeout=-1 if hand_off is None else hand_off)
        finally:
            with self._turns:
                self.writers_waiting -= 1
        try:
            if hand_off is None or not got:
                yield None if hand_off is None else 0.0
            else:
                yield max(0.0, hand_off - (time.monotonic() - started))
        finally:
            if got:
                self._writer.release()

    def _head(self) -> str | None:
        from kenso_git.index import freshness

        return freshness.head_commit(self.workspace)


def _state_snapshot(conn: sqlite3.Connection, *, with_files: bool) -> _Snapshot:
    meta = read_meta(conn)
    files = load_files(conn) if with_files else {}  # for the staleness check
    kept = totals.read(conn)  # running totals: a few rows whatever the index's size (#32)
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    counts = (kept.documents, kept.chunks, kept.links, kept.content_bytes, version)
    return _Snapshot(counts, meta, kept.categories, files)


def _db_bytes(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += Path(f"{path}{suffix}").stat().st_size
        except OSError:
            continue
    return total
