"""The writes of one indexing run: each prepared file applied to the index, the files that
vanished removed, the links and meta rows brought up to date at the end."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.index import gitprobe
from kenso_git.index.report import FileResult
from kenso_git.index.report import IngestReport
from kenso_git.index.report import Progress
from kenso_git.index.report import Warn
from kenso_git.index.report import unchanged_result
from kenso_git.repo import git
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import Workspace
from kenso_git.store import schema
from kenso_git.store import vocab
from kenso_git.store.chunks import BulkInsert
from kenso_git.store.chunks import write_chunks
from kenso_git.store.files import META_COUNTS
from kenso_git.store.files import FileRow
from kenso_git.store.files import delete_file
from kenso_git.store.files import file_blob_ids
from kenso_git.store.files import upsert_file
from kenso_git.store.meta import bump_generation
from kenso_git.store.meta import write_meta

if TYPE_CHECKING:
    from pathlib import Path

    from kenso_git.index.prepare import Digest
    from kenso_git.index.prepare import Prepared
    from kenso_git.repo.discover import SourceFile


class Run:
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
        digest: Digest | None = None,
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
        self.head_moved = False  # HEAD moved while the docs were read: no HEAD recorded

    def file_row(
        self,
        sf: SourceFile,
        blob: str,
        status: str,
        keep: FileRow | None = None,
        *,
        title: str | None = None,
        category: str | None = None,
        chunks: int = 0,
        detail: str | None = None,
        relations: str | None = None,
    ) -> FileRow:
        """A files row with fresh stat data; the descriptive fields come from `keep`, else
        as given (built in one go: a cold ingest makes one per file)."""
        if keep is not None:
            title, category, chunks = keep.title, keep.category, keep.chunks
            detail, relations = keep.detail, keep.relations
        return FileRow(
            sf.path,
            blob,
            status,
            sf.size,
            sf.mtime_ns,
            sf.ctime_ns,
            sf.inode,
            self.started_ns,
            title,
            category,
            chunks,
            detail,
            relations,
        )

    def apply(self, sf: SourceFile, prep: Prepared, stored: FileRow | None) -> None:
        """Write what `prepare` found out about one file."""
        if prep.seen is not None:  # the row describes the file the text was read from
            size, mtime_ns, ctime_ns, inode = prep.seen
            sf = sf._replace(size=size, mtime_ns=mtime_ns, ctime_ns=ctime_ns, inode=inode)
        for problem in prep.problems:
            self.warn(f"{sf.path}:{problem}")
        if prep.document is not None:
            kept = prep.document if self.digest is None else self.digest.hold(prep.document)
            self.report.documents.append(kept)
        if prep.status == "unchanged" and stored is not None:
            upsert_file(self.conn, self.file_row(sf, prep.blob, stored.status, keep=stored))
            self.report.results.append(unchanged_result(stored))
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
        row = self.file_row(
            sf,
            prep.blob,
            FileStatus.INDEXED,
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
        upsert_file(self.conn, self.file_row(sf, blob, reason, detail=detail))
        if reason != FileStatus.SHORT:
            self.warn(f"{sf.path}: {detail}, skipped")
        self.report.results.append(FileResult(sf.path, "skipped", 0, detail))


def remove_vanished(run: Run, stored: dict[str, FileRow], live: set[str]) -> None:
    """Remove the rows of the files no longer found: the index holds exactly the files
    under the scope."""
    for path in sorted(p for p in stored if p not in live):
        delete_file(run.conn, path)
        run.wrote = True
        if stored[path].status == FileStatus.INDEXED:
            run.paths_changed = True
            run.moved.append(path)
            run.report.results.append(FileResult(path, "removed"))


def finish(run: Run, meta: dict[str, str], fingerprint: str) -> None:
    """Bring the links and the meta rows up to date with what the run wrote."""
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
    elif run.head_moved:
        values[schema.META_WORKTREE_DIRTY] = ""  # against which HEAD? the rerun records it
    elif run.ws.is_git and (run.wrote or report.head != (meta.get(schema.META_HEAD) or None)):
        # A full sync of an existing index records it; a first build and a targeted (hook)
        # sync leave it to `state()` to work out when asked (one `git ls-tree`).
        differs = (
            None
            if run.targeted or not meta
            else differs_from_head(run.ws, run.settings, report.scope, file_blob_ids(conn))
        )
        values[schema.META_WORKTREE_DIRTY] = "" if differs is None else ("1" if differs else "0")
    if run.counts is not None and not run.wrote:  # a write bumps the generation below
        values[META_COUNTS] = run.counts
    if not meta:  # a new file: caches keyed on (path, generation) must not take it for the old
        values[schema.META_GENERATION] = str(time.time_ns())
    write_meta(conn, values)
    if run.wrote and meta:
        bump_generation(conn)
    if run.wrote and run.ws.git_dir is not None:  # a write may touch .git: drop our old copy
        from kenso_git.repo.statusindex import remove_legacy

        remove_legacy(str(run.ws.git_dir))


def never_indexed(root: Path, path: str) -> bool:
    """A path discovery always skips (repo.discover): one no agent may name (`b%41.md`, or
    deeper than the gate takes), or one inside an environment folder (a virtualenv,
    `node_modules`) or a nested repository (HEAD may track a doc in a folder that is one
    now: the sync drops it)."""
    from kenso_git.repo.foreign import in_environment
    from kenso_git.repo.foreign import in_nested_repository
    from kenso_git.repo.pathtext import unindexable
    from kenso_git.repo.workspace import is_undecodable

    if unindexable(path) is not None or is_undecodable(path):
        return True
    return in_environment(root, path) or in_nested_repository(root, path)


def differs_from_head(
    ws: Workspace, settings: Settings, scope: Sequence[str], blobs: Mapping[str, str]
) -> bool | None:
    """Does the indexed Markdown differ from HEAD's (edits, new or deleted files)?

    `blobs`: path -> blob id of every files row ("" where none was taken: such a path is
    left out on both sides). HEAD's listing is read one entry at a time against it: no
    dictionary of HEAD's files, nor of every whole files row with its raw links (what a
    server's first `health_check` after a hook's sync read at 100,000 docs, #32)."""
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.workspace import in_scope
    from kenso_git.repo.workspace import is_markdown

    listing = git.head_listing(ws)
    if listing is None:
        return None
    rules = IgnoreRules.for_workspace(ws, settings)
    matched = 0
    for path, blob in git.listed_blobs(listing):
        if not is_markdown(path) or not in_scope(path, scope) or rules.is_ignored(path):
            continue
        held = blobs.get(path)
        if held == "":
            continue  # not hashed: compared on neither side
        if held is None and never_indexed(ws.root, path):
            continue  # discovery skips it by its name or folder: no indexed doc differs
        if held != blob:
            return True  # changed, or in HEAD and not indexed
        matched += 1
    return matched != sum(1 for blob in blobs.values() if blob)  # indexed, not in HEAD
