"""Build and update the index: discover -> (blob id) -> parse -> chunk -> store.

One writer transaction per run. Files whose stat data matches what the index recorded
are not read at all; the others are identified by their git blob id (the git index's id
for clean tracked files, `Repository.hashfile` otherwise, a plain blob hash outside a
repository) and only files whose blob id changed are parsed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.errors import IndexLockedError
from kenso_git.errors import NoIndexError
from kenso_git.index import commits
from kenso_git.index import freshness
from kenso_git.index import gitprobe
from kenso_git.index.freshness import cap_decides_anew
from kenso_git.index.freshness import stat_unchanged
from kenso_git.index.lock import CLI_WAIT_S
from kenso_git.index.lock import coalesced
from kenso_git.records import NamedTuple
from kenso_git.repo import git
from kenso_git.repo import gitstatus
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import exclude_from_git
from kenso_git.store import docwords
from kenso_git.store import schema
from kenso_git.store import stamp
from kenso_git.store import totals
from kenso_git.store import trigram
from kenso_git.store import vectors
from kenso_git.store import vocab
from kenso_git.store.chunks import BulkInsert
from kenso_git.store.chunks import write_chunks
from kenso_git.store.connection import check_pages
from kenso_git.store.connection import no_index_error
from kenso_git.store.connection import open_writer
from kenso_git.store.connection import transaction
from kenso_git.store.connection import writing
from kenso_git.store.files import META_COUNTS
from kenso_git.store.files import FileRow
from kenso_git.store.files import count_statuses
from kenso_git.store.files import delete_file
from kenso_git.store.files import load_files
from kenso_git.store.files import upsert_file
from kenso_git.store.meta import bump_generation
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta
from kenso_git.store.meta import write_meta
from kenso_git.store.publish import PublishedMeanwhileError
from kenso_git.store.publish import new_build_path
from kenso_git.store.publish import publish_build
from kenso_git.store.publish import remove_dead_builds
from kenso_git.store.wal import close_writer

if TYPE_CHECKING:
    # The walker and the parser load only when a run has files to look at: a sync with
    # nothing to do (the common case, and every query-time check) skips ~25 ms of imports.
    from kenso_git.index.prepare import Job
    from kenso_git.index.prepare import Prepared
    from kenso_git.repo.discover import SourceFile
    from kenso_git.repo.discover import WalkFacts
    from kenso_git.text.parse import Document

BULK_THRESHOLD = 50  # from this many changed files, FTS rows are written in batches
FTS_BATCH = 64  # files between two batch FTS inserts
KILL_AFTER_ENV = "KENSO_TEST_KILL_AFTER_FILES"  # test-only crash switch: see _kill_after

Progress = Callable[[int, int], None]
Warn = Callable[[str], None]


class FileResult(NamedTuple):
    """What one run did with one file."""

    path: str
    status: str  # ingested | unchanged | skipped | error | removed
    chunks: int = 0
    detail: str | None = None
    title: str | None = None
    category: str | None = None


class IngestReport:
    """The outcome of one ingest or sync run."""

    __slots__ = ("carried", "documents", "elapsed", "head", "results", "scope")

    def __init__(self, scope: list[str], head: str | None = None) -> None:
        self.scope = scope
        self.head = head
        self.results: list[FileResult] = []
        # parsed in this run: each Document, or what the run's `digest` kept of it
        self.documents: list[object] = []
        self.elapsed = 0.0
        # files a sync did not look at (git said they hold HEAD's text), by result status
        self.carried: dict[str, int] = {}

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status) + self.carried.get(status, 0)

    @property
    def total(self) -> int:
        """Files the index holds after the run: those looked at and those carried over."""
        return len(self.results) + sum(self.carried.values())

    @property
    def changed(self) -> bool:
        return any(r.status in {"ingested", "removed"} for r in self.results)

    @property
    def total_chunks(self) -> int:
        return sum(r.chunks for r in self.results)


def _unchanged(row: FileRow) -> FileResult:
    if row.status == FileStatus.INDEXED:
        return FileResult(row.path, "unchanged", row.chunks)
    return FileResult(row.path, "skipped", 0, row.detail)


def _settings_fingerprint(settings: Settings) -> str:
    # "links": what `files.relations` holds (2: with inline Markdown links, #17); an index
    # made before re-parses every file once, so unchanged files' links are found too
    return json.dumps(
        {"chunk_size": settings.chunk_size, "overlap": settings.chunk_overlap, "links": 2}
    )


class _Run:
    """The state of one indexing run."""

    def __init__(
        self,
        ws: Workspace,
        settings: Settings,
        conn: sqlite3.Connection,
        report: IngestReport,
        warn: Warn,
        progress: Progress | None,
        *,
        keep_documents: bool = False,
        digest: Callable[[Document], object] | None = None,
    ) -> None:
        self.ws = ws
        self.settings = settings
        self.conn = conn
        self.report = report
        self.warn = warn
        self.progress = progress
        self.keep_documents = keep_documents  # keep parsed documents (for the lint summary)
        self.digest = digest  # ... or what this keeps of each, computed where it is parsed
        self.started_ns = time.time_ns()
        self.wrote = False  # any chunk, link or file row changed (beyond stat refreshes)
        self.paths_changed = False  # the set of indexed paths changed: links may resolve anew
        self.moved: list[str] = []  # the paths that joined or left that set
        self.targeted = False  # only the paths a git operation changed were looked at
        self.reindexed: list[str] = []  # files whose links were replaced
        self.bulk: BulkInsert | None = None  # set while many files are being written
        self.mark: str | None = None  # the git mark to record (gitprobe); None: keep it
        self.probe_differs: bool | None = None  # git status listed docs differing from HEAD
        self.probe: gitprobe.Probe | None = None  # this run's git status, when it asked one
        self.counts: str | None = None  # the row counts to keep (META_COUNTS), if counted
        self.words: list[tuple[str, str]] = []  # vocabulary rows to insert (vocab.add)

    def file_row(
        self, sf: SourceFile, blob: str, status: str, keep: FileRow | None = None
    ) -> FileRow:
        """A files row with fresh stat data; descriptive fields come from `keep`."""
        row = FileRow(
            sf.path, blob, status, sf.size, sf.mtime_ns, sf.ctime_ns, sf.inode, self.started_ns
        )
        if keep is None:
            return row
        return row._replace(
            title=keep.title,
            category=keep.category,
            chunks=keep.chunks,
            detail=keep.detail,
            relations=keep.relations,
        )

    def apply(self, sf: SourceFile, prep: Prepared, stored: FileRow | None) -> None:
        """Write what `prepare` found out about one file."""
        if prep.seen is not None:  # the row describes the file the text was read from
            size, mtime_ns, ctime_ns, inode = prep.seen
            sf = sf._replace(size=size, mtime_ns=mtime_ns, ctime_ns=ctime_ns, inode=inode)
        for problem in prep.problems:
            self.warn(f"{sf.path}:{problem}")
        if prep.document is not None:
            self.report.documents.append(prep.document)
        if prep.status == "unchanged" and stored is not None:
            upsert_file(self.conn, self.file_row(sf, prep.blob, stored.status, keep=stored))
            self.report.results.append(_unchanged(stored))
        elif prep.status == "indexed":
            if stored is None or stored.status != FileStatus.INDEXED:
                self.paths_changed = True
                self.moved.append(sf.path)
            self.reindexed.append(sf.path)
            self.index(sf, prep, had_row=stored is not None)
        else:
            if stored is not None and stored.status == FileStatus.INDEXED:
                self.paths_changed = True
                self.moved.append(sf.path)
            self.skip(sf, prep.blob, prep.reason or FileStatus.UNREADABLE, prep.detail)

    def index(self, sf: SourceFile, prep: Prepared, *, had_row: bool = True) -> None:
        self.wrote = True
        write_chunks(
            self.conn,
            sf.path,
            prep.rows,
            prep.category,
            prep.audience,
            prep.tags,
            prep.blob[:16],
            replace=had_row,
            bulk=self.bulk,
            labels=prep.labels,
        )
        vocab.write_words(
            self.conn, sf.path, prep.blob, prep.words, new=not had_row, later=self.words
        )
        row = self.file_row(sf, prep.blob, FileStatus.INDEXED)._replace(
            title=prep.title,
            category=prep.category,
            chunks=len(prep.rows),
            relations=prep.relations,
        )
        upsert_file(self.conn, row)
        self.report.results.append(
            FileResult(sf.path, "ingested", len(prep.rows), None, prep.title, prep.category)
        )

    def skip(self, sf: SourceFile, blob: str, reason: str, detail: str) -> None:
        self.wrote = True
        delete_file(self.conn, sf.path)
        vocab.write_words(self.conn, sf.path, blob, ())  # none: no chunks to read them from
        upsert_file(self.conn, self.file_row(sf, blob, reason)._replace(detail=detail))
        if reason != FileStatus.SHORT:
            self.warn(f"{sf.path}: {detail}, skipped")
        self.report.results.append(FileResult(sf.path, "skipped", 0, detail))


def run_index(
    ws: Workspace,
    settings: Settings,
    db_path: Path,
    *,
    scope: Sequence[str] | None = None,
    progress: Progress | None = None,
    warn: Warn | None = None,
    head: str | None = None,
    keep_documents: bool = False,
    digest: Callable[[Document], object] | None = None,
    only: Sequence[str] | None = None,
    rebuild: bool = False,
    verify: bool = False,
    hand_off: float | None = None,
    early: gitstatus.EarlyStatus | None = None,
    create: bool = True,
) -> IngestReport:
    """Make the index equal to the Markdown files under `scope` (default: the stored scope).

    With `only`, look at just those root-relative paths (what a git operation changed) and
    keep every other file as it is: no walk of the work tree. With `rebuild`, build a new
    index from nothing and replace the old file (the recovery from a corrupt one); with
    `verify`, check every page of the existing index first (`PRAGMA quick_check`). Runs
    under the write lock (waiting for it, and saying so on `warn`), then syncs once more
    for every git hook that asked meanwhile. With `hand_off` (seconds), wait only that long,
    as a hook does: past it the run is left to the lock holder (a query must not wait).
    `early`: the first `git status`, started by the caller (`gitstatus.start_status`); the
    caller stops it if this run did not take it. Without `create`, a missing index is
    not built (NoIndexError). A build that finds another writer's index published
    meanwhile (`rm -rf .kenso` bypassed the lock) updates that index instead.

    Raises:
        DatabaseError: the database cannot be written (`IndexLockedError`: the lock stayed
        held, or the run was handed to its holder; `IndexWriteError`: disk full, read-only;
        `CorruptIndexError`).
    """
    reports: list[IngestReport] = []

    def job(round_: int) -> None:
        if round_ == 0:
            once = _Once(
                scope, head, keep_documents, only, rebuild, verify, hand_off is None, early, create
            )._replace(digest=digest)
            reports.append(_run_once(ws, settings, db_path, once, progress, warn))
        else:  # a rerun a hook asked for: a full sync of the stored scope
            again = _Once(  # a reader's run never creates, its reruns neither (#26)
                None, freshness.head_commit(ws), False, None, False, False, False, create=create
            )
            _run_once(ws, settings, db_path, again, None, warn)

    if hand_off is None:
        coalesced(db_path.parent, job, wait=CLI_WAIT_S, own_run=True, say=warn)
    elif not coalesced(db_path.parent, job, wait=hand_off, own_run=False):
        raise IndexLockedError(
            "another kenso-git process is writing the index; it will sync this change too",
            path=str(db_path),
            hint="the answer comes from the index as it was; ask again in a moment",
        )
    if not reports:  # the holder took this run's mark and synced for it before letting go
        return IngestReport(list(scope or ()), head)
    return reports[0]


class _Once(NamedTuple):
    scope: Sequence[str] | None
    head: str | None
    keep_documents: bool
    only: Sequence[str] | None
    rebuild: bool
    verify: bool
    interactive: bool  # a command the user ran (not a hook or a query): git may refresh
    early: gitstatus.EarlyStatus | None = None  # the first git status, started by the caller
    create: bool = True  # build the index when there is none (a query's sync does not)
    digest: Callable[[Document], object] | None = None  # see _Run.digest


def _run_once(
    ws: Workspace,
    settings: Settings,
    db_path: Path,
    once: _Once,
    progress: Progress | None,
    warn: Warn | None,
) -> IngestReport:
    started = time.perf_counter()
    published_meanwhile = False
    # every page is read when asked (ingest) or when the file changed since a kenso-git
    # writer last left it: damage a no-change sync never reads is named, not "unchanged"
    suspect = once.verify or not stamp.matches(db_path)
    conn, build = _open_index(db_path, once)
    if build is not None and db_path.parent.name == ".kenso" and db_path.parent.parent == ws.root:
        exclude_from_git(ws)
    say = warn or (lambda _m: None)
    try:
        with writing(conn, db_path):
            if suspect and build is None:
                check_pages(conn, db_path)
        with writing(conn, db_path), transaction(conn):
            meta = read_meta(conn)
            docwords.ensure(conn)
            totals.ensure(conn)  # the running counts state() reads (#32)
            vocab.ensure(conn)  # the typo words, asked per term (#32)
            cjk_changed = trigram.ensure(conn, settings.cjk, meta.get(trigram.META_MODE))
            if vectors.ensure(conn, settings.vectors) or cjk_changed:
                bump_generation(conn)  # a side index appeared or went (#18)
            scope = meta_scope(meta) if once.scope is None else once.scope
            report = IngestReport(scope=list(scope), head=once.head)
            run = _Run(
                ws,
                settings,
                conn,
                report,
                say,
                progress,
                keep_documents=once.keep_documents,
                digest=once.digest,
            )
            _apply(run, meta, once, may_skip_walk=once.scope is None)
            touched = [r.path for r in report.results if r.status != "unchanged"]
            commits.refresh(conn, ws, once.head, touched, run.probe)  # each doc's last commit
            if settings.vectors and vectors.fill(conn):  # in the same transaction (#18)
                bump_generation(conn)
            vocab.seal(conn)  # at the generation this run leaves
        if build is not None:
            try:
                publish_build(conn, build, db_path, replace=once.rebuild)
            except PublishedMeanwhileError:
                if once.rebuild:
                    raise
                published_meanwhile = True
    finally:
        close_writer(conn, db_path)  # empties a long WAL: the next process starts with none
        if build is not None:
            build.unlink(missing_ok=True)
    if published_meanwhile:  # another writer's index is there now: update that one
        return _run_once(ws, settings, db_path, once._replace(early=None), progress, warn)
    stamp.record(db_path)  # as this writer leaves it (store/stamp.py)
    report.elapsed = time.perf_counter() - started
    return report


def _open_index(db_path: Path, once: _Once) -> tuple[sqlite3.Connection, Path | None]:
    """The writer of this run, and the private file it builds in (None: it updates the index).

    A brand-new index is built in a private file without a journal and published by a hard
    link when complete: no reader can see it half-built, a crash leaves only the private
    file, and the build skips the WAL's double write.
    """
    build = new_build_path(db_path) if once.rebuild or not db_path.exists() else None
    if build is not None and not once.create:
        raise no_index_error(db_path)
    if build is None:  # what a killed build left (#26); a new build's path swept already
        with suppress(OSError):  # a folder this writer cannot change fails it below
            remove_dead_builds(db_path)
    try:
        return open_writer(build or db_path, fresh=build is not None), build
    except NoIndexError:  # removed since we looked (`rm -rf .kenso`): build it anew
        if not once.create:
            raise
        build = new_build_path(db_path)
        return open_writer(build, fresh=True), build


def _apply(run: _Run, meta: dict[str, str], once: _Once, *, may_skip_walk: bool) -> None:
    conn, report, only = run.conn, run.report, once.only
    fingerprint = _settings_fingerprint(run.settings)
    rechunk_all = meta.get(schema.META_SETTINGS) not in (None, fingerprint)
    if rechunk_all or not meta:
        only = None  # settings changed, or a brand-new index: look at everything
    given = only
    probe, fast = None, None
    if only is None:
        probe, fast = _ask_git(run, meta, once, may_skip_walk=may_skip_walk and not rechunk_all)
        if fast is not None:
            only = fast[0]
    run.targeted = only is not None
    run.probe = probe
    stored, found, facts, saw_attributes = _look(run, only)
    live = {sf.path for sf in found}
    cap = run.settings.max_file_size
    suspects = [
        sf
        for sf in found
        if rechunk_all
        or not stat_unchanged(sf, row := stored.get(sf.path))
        or cap_decides_anew(row, cap)
    ]
    jobs = _jobs(run, suspects, stored, rechunk_all, saw_attributes=saw_attributes)
    prepared = _prepare(run, jobs)
    bulk = run.bulk = BulkInsert(conn) if len(jobs) >= BULK_THRESHOLD else None
    suspect_paths = {sf.path for sf in suspects}
    kill_after, written = _kill_after(), 0
    for done, sf in enumerate(found, 1):
        row = stored.get(sf.path)
        if sf.path not in suspect_paths and row is not None:
            report.results.append(_unchanged(row))
        else:
            run.apply(sf, next(prepared), row)
            written += 1
            if written == kill_after:
                _kill_self()
            if bulk is not None and done % FTS_BATCH == 0:
                bulk.flush()
        if run.progress is not None and done % 25 == 0:
            run.progress(done, len(found))
    if bulk is not None:
        bulk.end()
        run.bulk = None
    vocab.add(conn, run.words)
    _remove_vanished(run, stored, live)
    touched = _touched(probe, suspects, set(stored) - live)
    walked = facts
    run.mark = _next_mark(run, meta, given, probe, fast, found, touched, walked)
    if fast is not None or probe is not None:
        run.targeted = False  # the probe tells whether the work tree differs from HEAD
        run.probe_differs = probe is not None and bool(probe.docs)
    _finish(run, meta, fingerprint)


def _look(
    run: _Run, only: Sequence[str] | None
) -> tuple[dict[str, FileRow], list[SourceFile], WalkFacts | None, bool]:
    """The stored rows and the files found: a walk (its facts too), or only `only`'s.

    Returns (rows, files, the walk's facts or None, whether a .gitattributes applies).
    """
    if only is None:
        from kenso_git.repo.discover import WalkFacts
        from kenso_git.repo.discover import discover

        facts = WalkFacts()
        stored = load_files(run.conn)
        scope = run.report.scope
        found = discover(run.ws, run.settings, scope=scope, warn=run.warn, facts=facts)
        return stored, found, facts, facts.saw_attributes
    if not only:  # nothing to look at: no walker, no parser to import
        return {}, [], None, False
    from kenso_git.repo.discover import discover_paths

    # a targeted sync reads and may remove only the rows of `only`
    stored = load_files(run.conn, only)
    found = discover_paths(run.ws, run.settings, only, scope=run.report.scope, warn=run.warn)
    return stored, found, None, _attributes_near(run.ws, only)


def _ask_git(
    run: _Run, meta: dict[str, str], once: _Once, *, may_skip_walk: bool
) -> tuple[gitprobe.Probe | None, tuple[list[str], gitprobe.Mark] | None]:
    """git status of the scope and, when the mark allows, the only docs worth a look."""
    # git status runs before anything is read: a doc edited after it is listed next time.
    probe = gitprobe.probe(
        run.ws, run.settings, run.report.scope, refresh=once.interactive, early=once.early
    )
    if probe is None or not may_skip_walk or not meta:
        return probe, None
    fast = gitprobe.candidates(run.ws, meta, probe)
    if fast is not None:
        run.report.carried, run.counts = count_statuses(run.conn, exclude=fast[0], meta=meta)
    return probe, fast


def _touched(
    probe: gitprobe.Probe | None, suspects: Sequence[SourceFile], removed: set[str]
) -> set[str]:
    """The removed docs and those rewritten that may have changed after git status ran."""
    if probe is None:
        return removed
    recent = probe.started_ns - gitprobe.CLOCK_SLACK_NS
    return removed | {sf.path for sf in suspects if sf.ctime_ns >= recent}


def _next_mark(
    run: _Run,
    meta: dict[str, str],
    given: Sequence[str] | None,
    probe: gitprobe.Probe | None,
    fast: tuple[list[str], gitprobe.Mark] | None,
    found: Sequence[SourceFile],
    touched: set[str],
    facts: WalkFacts | None,
) -> str | None:
    """The git mark this run leaves (see gitprobe); None keeps the recorded one."""
    if given is not None and probe is None:  # a hook's or a query's targeted sync
        return gitprobe.widen(meta, given)
    if probe is None:
        return ""  # git could not tell: the next run walks
    if fast is not None:
        looked = set(fast[0])
        links = {p for p in fast[1].links if p not in looked}
        links.update(sf.path for sf in found if os.path.islink(sf.location))
        return gitprobe.mark_value(probe, touched, links)
    if facts is None:
        return ""
    # After a walk: a file git cannot see (untracked and ignored by git, re-included by a
    # .kensoignore negation) would never be listed: no mark, the next run walks again.

    head = git.head_blob_ids(run.ws)
    listed = set(probe.docs)
    if head is None or any(sf.path not in head and sf.path not in listed for sf in found):
        return ""
    return gitprobe.mark_value(probe, touched, facts.links)


def _kill_after() -> int:
    """Test-only: with KENSO_TEST_KILL_AFTER_FILES=N the writer kills itself after N files
    (`N:TERM`: sends itself SIGTERM instead of SIGKILL).

    The crash tests (tests/index/) need a signal that lands inside the write transaction
    every time, which no sleep can promise. Read once per run; 0 (off) when unset.
    """
    raw = os.environ.get(KILL_AFTER_ENV, "").split(":", 1)[0]
    return int(raw) if raw else 0


def _kill_self() -> None:
    import signal  # only ever imported under the test switch: the hook path stays lean

    term = os.environ.get(KILL_AFTER_ENV, "").endswith(":TERM")
    os.kill(os.getpid(), signal.SIGTERM if term else signal.SIGKILL)


def differs_from_head(
    ws: Workspace, settings: Settings, scope: Sequence[str], files: dict[str, FileRow]
) -> bool | None:
    """Does the indexed Markdown differ from HEAD's (edits, new or deleted files)?"""
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.workspace import in_scope
    from kenso_git.repo.workspace import is_markdown

    head = git.head_blob_ids(ws)
    if head is None:
        return None
    rules = IgnoreRules.for_workspace(ws, settings)
    tracked = {
        path: blob
        for path, blob in head.items()
        if is_markdown(path) and in_scope(path, scope) and not rules.is_ignored(path)
    }
    unknown = {p for p, r in files.items() if not r.blob_id}  # binary or oversized: not hashed
    indexed = {p: r.blob_id for p, r in files.items() if p not in unknown}
    return indexed != {p: b for p, b in tracked.items() if p not in unknown}


def _attributes_near(ws: Workspace, paths: Sequence[str]) -> bool:
    """Does a .gitattributes file apply to any of `paths` (in its folder or above)?"""
    folders = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return any((ws.root / folder / ".gitattributes").exists() for folder in folders)


def _jobs(
    run: _Run,
    suspects: Sequence[SourceFile],
    stored: dict[str, FileRow],
    rechunk_all: bool,
    *,
    saw_attributes: bool,
) -> list[Job]:
    """One job per changed-looking file. Git is asked for blob ids only when a content
    filter could make them differ from the plain hash of the bytes (see `gitconfig`)."""
    if not suspects:
        return []
    from kenso_git.index.prepare import Job
    from kenso_git.index.prepare import git_blob_ids

    git_ids = git_blob_ids(run.ws, [sf.path for sf in suspects], saw_attributes=saw_attributes)
    use_git = git_ids is not None
    cap = run.settings.max_file_size
    jobs = []
    for sf in suspects:
        row = stored.get(sf.path)
        # a file the cap in force judges anew is read again: its blob id does not say
        fresh = rechunk_all or row is None or cap_decides_anew(row, cap)
        known = None if fresh or row is None else row.blob_id
        jobs.append(Job(sf, known, git_ids.get(sf.path) if git_ids else None, use_git))
    return jobs


def _prepare(run: _Run, jobs: list[Job]) -> Iterator[Prepared]:
    """The prepared files of `jobs`, in order (the parser loads only when there are any)."""
    if not jobs:
        return iter(())
    from kenso_git.index.prepare import Options
    from kenso_git.index.prepare import prepare_all

    opts = Options(
        run.settings.chunk_size,
        run.settings.chunk_overlap,
        run.settings.max_file_size,
        run.keep_documents,
        run.digest,
    )
    return prepare_all(jobs, opts)


def _remove_vanished(run: _Run, stored: dict[str, FileRow], live: set[str]) -> None:
    # The index holds exactly the files under the scope: anything else goes.
    for path in sorted(p for p in stored if p not in live):
        delete_file(run.conn, path)
        run.wrote = True
        if stored[path].status == FileStatus.INDEXED:
            run.paths_changed = True
            run.moved.append(path)
            run.report.results.append(FileResult(path, "removed"))


def _finish(run: _Run, meta: dict[str, str], fingerprint: str) -> None:
    conn, report = run.conn, run.report
    if run.wrote:
        from kenso_git.index import links

        if run.paths_changed:
            links.update_links(conn, run.reindexed, run.moved)
        else:
            links.rebuild_links(conn, sources=run.reindexed)
    values = {
        schema.META_SCOPE: json.dumps(report.scope),
        schema.META_SETTINGS: fingerprint,
        schema.META_SYNCED_AT: str(time.time()),
        schema.META_ROOT: str(run.ws.root),
    }
    if run.ws.is_git:  # "" on an unborn or orphan branch: never another branch's commit
        values[schema.META_HEAD] = report.head or ""
    if run.mark is not None:
        values[gitprobe.META_GIT_MARK] = run.mark
    if run.probe_differs is not None:
        values[schema.META_WORKTREE_DIRTY] = "1" if run.probe_differs else "0"
    elif run.ws.is_git and (run.wrote or report.head != (meta.get(schema.META_HEAD) or None)):
        # A full sync of an existing index records it; a first build and a targeted (hook)
        # sync leave it to `state()` to work out when asked (one `git ls-tree`).
        differs = (
            None
            if run.targeted or not meta
            else differs_from_head(run.ws, run.settings, report.scope, load_files(conn))
        )
        values[schema.META_WORKTREE_DIRTY] = "" if differs is None else ("1" if differs else "0")
    if run.counts is not None and not run.wrote:  # a write bumps the generation below
        values[META_COUNTS] = run.counts
    if not meta:  # a new file: caches keyed on (path, generation) must not take it for the old
        values[schema.META_GENERATION] = str(time.time_ns())
    write_meta(conn, values)
    if run.wrote and meta:
        bump_generation(conn)
