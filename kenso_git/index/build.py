"""Build and update the index: discover -> (blob id) -> parse -> chunk -> store.

This module runs it: the write lock and the reruns hooks ask for (`run_index`), the writer's
file (a private build published whole, or the live index), and the loop over the files
found; `look.py` decides what to read, `run.py` writes it, `report.py` says what was done.

One writer transaction per run. Files whose stat data matches what the index recorded
are not read at all; the others are identified by their git blob id (the git index's id
for clean tracked files, `Repository.hashfile` otherwise, a plain blob hash outside a
repository) and only files whose blob id changed are parsed.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.errors import IndexLockedError
from kenso_git.errors import NoIndexError
from kenso_git.index import commits
from kenso_git.index import freshness
from kenso_git.index.freshness import cap_decides_anew
from kenso_git.index.freshness import stat_unchanged
from kenso_git.index.lock import CLI_WAIT_S
from kenso_git.index.lock import ask_rerun
from kenso_git.index.lock import coalesced
from kenso_git.index.look import ask_git
from kenso_git.index.look import jobs_for
from kenso_git.index.look import look
from kenso_git.index.look import next_mark
from kenso_git.index.look import prepare_jobs
from kenso_git.index.look import touched_paths
from kenso_git.index.look import with_links
from kenso_git.index.report import IngestReport
from kenso_git.index.report import Progress
from kenso_git.index.report import Warn
from kenso_git.index.report import unchanged_result
from kenso_git.index.run import Run
from kenso_git.index.run import finish
from kenso_git.index.run import remove_vanished
from kenso_git.records import NamedTuple
from kenso_git.repo import gitstatus
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import exclude_from_git
from kenso_git.store import docwords
from kenso_git.store import stamp
from kenso_git.store import totals
from kenso_git.store import trigram
from kenso_git.store import vectors
from kenso_git.store import vocab
from kenso_git.store.chunks import BulkInsert
from kenso_git.store.connection import no_index_error
from kenso_git.store.connection import open_writer
from kenso_git.store.connection import transaction
from kenso_git.store.connection import writing
from kenso_git.store.integrity import check_pages
from kenso_git.store.meta import bump_generation
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta
from kenso_git.store.publish import PublishedMeanwhileError
from kenso_git.store.publish import new_build_path
from kenso_git.store.publish import publish_build
from kenso_git.store.publish import remove_dead_builds
from kenso_git.store.wal import close_writer

if TYPE_CHECKING:
    from kenso_git.index.gitprobe import Probe
    from kenso_git.index.prepare import Digest

BULK_THRESHOLD = 50  # from this many changed files, FTS rows are written in batches
FTS_BATCH = 64  # files between two batch FTS inserts
KILL_AFTER_ENV = "KENSO_TEST_KILL_AFTER_FILES"  # test-only crash switch: see _kill_after


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
    digest: Digest | None = None,
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
    new_folder = not db_path.parent.exists()  # made for the index: kept out of git whole

    def job(round_: int) -> None:
        if round_ == 0:
            once = _Once(
                scope, head, keep_documents, only, rebuild, verify, hand_off is None, early, create
            )._replace(digest=digest, new_folder=new_folder)
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
    digest: Digest | None = None  # see index.run.Run.digest
    retried: bool = False  # this run is the one after another writer published meanwhile
    new_folder: bool = False  # the index's folder did not exist before this run


def _keep_from_git(ws: Workspace, db_path: Path, new_folder: bool, say: Warn) -> None:
    """Make a new index inside the work tree invisible to git as the default `.kenso/` is
    (`info/exclude`): its folder when it is a `.kenso` or was made for it (`--db
    sub/.kenso/docs.db` from a subfolder); else one line says git will see the files."""
    folder = db_path.parent
    if (
        not ws.is_git
        or not folder.is_relative_to(ws.root)
        or folder.is_relative_to(ws.root / ".git")
    ):
        return
    if folder == ws.root or not (new_folder or folder.name == ".kenso"):
        rel = db_path.relative_to(ws.root).as_posix()
        say(
            f"the index {rel} and its companion files sit among the work tree's files, where "
            "git sees them: add them to .gitignore, or name a file in a folder of its own "
            "(--db some/.kenso/docs.db), which kenso-git keeps out of git itself"
        )
        return
    exclude_from_git(ws, f"/{folder.relative_to(ws.root).as_posix()}/")


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
    say = warn or (lambda _m: None)
    if build is not None:
        _keep_from_git(ws, db_path, once.new_folder, say)
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
            if meta:
                report.scope_before = meta_scope(meta)
            run = Run(
                ws,
                settings,
                conn,
                report,
                say,
                progress,
                keep_documents=once.keep_documents,
                digest=once.digest,
            )
            seen = _apply(run, meta, once, may_skip_walk=once.scope is None)
            touched = [r.path for r in report.results if r.status != "unchanged"]
            commits.refresh(conn, ws, seen, touched, run.probe)  # each doc's last commit
            if settings.vectors and vectors.fill(conn):  # in the same transaction (#18)
                bump_generation(conn)
            vocab.seal(conn)  # at the generation this run leaves
        if build is not None:
            try:
                publish_build(conn, build, db_path, replace=once.rebuild)
            except PublishedMeanwhileError:
                if once.rebuild or once.retried:  # the name stays taken: never loop on it
                    raise
                published_meanwhile = True
    finally:
        close_writer(conn, db_path)  # empties a long WAL: the next process starts with none
        if build is not None:
            build.unlink(missing_ok=True)
    if published_meanwhile:  # another writer's index is there now: update that one
        again = once._replace(early=None, retried=True)
        return _run_once(ws, settings, db_path, again, progress, warn)
    stamp.record(db_path)  # as this writer leaves it (store/stamp.py)
    if run.head_moved:  # the holder of the lock (this process) syncs again before letting go
        ask_rerun(db_path.parent)
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


def _apply(run: Run, meta: dict[str, str], once: _Once, *, may_skip_walk: bool) -> str | None:
    """Make the index equal to the docs of the run's scope; returns the HEAD it read first.

    HEAD is read under the lock before git status and any doc, and again after the last
    doc: the index records a HEAD only when the two agree (`Run.head_moved`)."""
    conn, report, only = run.conn, run.report, once.only
    rechunk_all = freshness.reparse_due(meta, run.settings)
    seen = report.head = freshness.head_commit(run.ws)
    # settings changed, a brand-new index, or HEAD moved since the caller chose the paths
    # (it waited for the lock): look at everything
    if rechunk_all or not meta or seen != once.head:
        only = None
    given = only
    probe, fast = None, None
    if only is None:
        probe, fast = ask_git(
            run,
            meta,
            interactive=once.interactive,
            early=once.early,
            may_skip_walk=may_skip_walk and not rechunk_all,
        )
        if fast is not None:
            only = fast[0]
    else:
        only = with_links(meta, only)
    run.targeted = only is not None
    run.probe = probe
    stored, found, facts, saw_attributes = look(run, only)
    live = {sf.path for sf in found}
    cap = run.settings.max_file_size
    suspects = [
        sf
        for sf in found
        if rechunk_all
        or not stat_unchanged(sf, row := stored.get(sf.path))
        or cap_decides_anew(row, cap)
    ]
    jobs = jobs_for(run, suspects, stored, rechunk_all, saw_attributes=saw_attributes)
    prepared = prepare_jobs(run, jobs)
    bulk = run.bulk = BulkInsert(conn) if len(jobs) >= BULK_THRESHOLD else None
    suspect_paths = {sf.path for sf in suspects}
    kill_after, written = _kill_after(), 0
    for done, sf in enumerate(found, 1):
        row = stored.get(sf.path)
        if sf.path not in suspect_paths and row is not None:
            report.results.append(unchanged_result(row))
        else:
            run.apply(sf, next(prepared), row)
            written += 1
            if written == kill_after:
                _kill_self()
            if bulk is not None and done % FTS_BATCH == 0:
                bulk.flush()
        if run.progress is not None and done % 25 == 0:
            run.progress(done, len(found))
    if run.digest is not None:
        run.digest.parsed_all(run.ws, run.settings, report)
    if bulk is not None:
        bulk.end()
        run.bulk = None
    vocab.add(conn, run.words)
    remove_vanished(run, stored, live)
    touched = touched_paths(probe, suspects, set(stored) - live)
    walked = facts
    run.mark = next_mark(run, meta, given, probe, fast, found, touched, walked)
    if fast is not None or probe is not None:
        run.targeted = False  # the probe tells whether the work tree differs from HEAD
        run.probe_differs = probe is not None and bool(probe.docs)
    _check_head(run, probe, seen)
    finish(run, meta, freshness.settings_fingerprint(run.settings))
    return seen


def _check_head(run: Run, probe: Probe | None, seen: str | None) -> None:
    """After the last doc was read: did HEAD stay `seen`, the commit read before the first?

    A checkout, commit or rebase that moved it meanwhile leaves docs that may hold either
    commit's text: the run claims neither (`head_moved`), and a rerun under this lock
    records the HEAD it finds."""
    if probe is not None and probe.head != seen:
        run.mark = ""  # git status may have compared the docs with either commit
    elif freshness.head_commit(run.ws) == seen:
        return
    run.head_moved = True
    run.report.head = None
    run.probe_differs = None


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
