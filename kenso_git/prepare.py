"""One file -> everything the index needs from it, without touching the database. Pure.

`prepare` reads, identifies (git blob id), parses and chunks one file. It runs in the
indexing process for small runs and in forked worker processes for large ones, so a cold
ingest uses both cores: workers parse while the main process writes SQLite.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import NamedTuple

from kenso_git.discover import Skip
from kenso_git.discover import SourceFile
from kenso_git.discover import document_from_bytes
from kenso_git.discover import read_bytes
from kenso_git.parse import Document
from kenso_git.store import db
from kenso_git.store import schema

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

    from kenso_git.config import Settings
    from kenso_git.workspace import Workspace

MIN_CHARS = 50  # files whose trimmed text is shorter are not indexed (kenso's floor)
PARALLEL_FROM = 300  # files to parse before worker processes pay for themselves
# Up to BATCH * WINDOW = 512 files may be parsed ahead of the writer: enough that the
# workers never stall while the main process runs an FTS batch (the old 16 x 6 cost ~7% of a
# cold ingest), little enough that parsed chunks cannot pile up (+1.3 MB peak RSS).
BATCH = 32  # files per task sent to a worker
WINDOW = 16  # tasks in flight at most


class Job(NamedTuple):
    """One file to prepare, and what the index already knows of it."""

    sf: SourceFile
    stored_blob: str | None  # blob id on record; equal -> nothing to parse
    known_blob: str | None  # blob id from git (filters applied), when git was asked
    use_git_ids: bool  # blob ids come from git; without one the file cannot be identified


class Prepared(NamedTuple):
    """The outcome for one file: unchanged, skipped (with why) or indexed (with rows)."""

    path: str
    blob: str
    status: str  # "unchanged" | "skipped" | "indexed"
    reason: str = ""  # a schema.SKIPPED_* value for skipped files
    detail: str = ""
    rows: tuple[db.ChunkRow, ...] = ()
    title: str | None = None
    category: str = ""
    audience: str = "all"
    tags: tuple[str, ...] = ()
    relations: str | None = None
    problems: tuple[str, ...] = ()  # "line: message" warnings
    document: Document | None = None


class Options(NamedTuple):
    chunk_size: int
    chunk_overlap: int
    max_file_size: int
    keep_documents: bool


def _extra(content: str, searchable: str) -> str | None:
    """What the searchable text adds after the content (stored once: see store.schema)."""
    head = content + "\n\n"
    return searchable[len(head) :] if searchable.startswith(head) else searchable or None


def _settings(opts: Options) -> Settings:
    from kenso_git.config import Settings

    return Settings(max_file_size=opts.max_file_size)


def prepare(job: Job, opts: Options) -> Prepared:
    """Identify, and when it changed, parse and chunk one file."""
    from kenso_git.gitrepo import blob_id

    sf = job.sf
    data: bytes | Skip | None = None
    if job.use_git_ids:
        blob = job.known_blob
        if blob is None:
            return Prepared(sf.path, "", "skipped", schema.SKIPPED_UNREADABLE, "cannot be hashed")
    else:
        data = read_bytes(sf, _settings(opts))
        if isinstance(data, Skip):
            return Prepared(sf.path, "", "skipped", data.reason, data.detail)
        blob = blob_id(data)
    if blob == job.stored_blob:
        return Prepared(sf.path, blob, "unchanged")
    if data is None:
        data = read_bytes(sf, _settings(opts))
    if isinstance(data, Skip):
        return Prepared(sf.path, blob, "skipped", data.reason, data.detail)
    return _parse(sf.path, blob, data, opts)


def _parse(path: str, blob: str, data: bytes, opts: Options) -> Prepared:
    from kenso_git import linkmap
    from kenso_git.chunk import chunk_document
    from kenso_git.chunk import searchable_content

    doc = document_from_bytes(path, data)
    problems = tuple(f"{p.line}: {p.message}" for p in doc.problems)
    kept = doc if opts.keep_documents else None
    if len(doc.text.strip()) < MIN_CHARS:
        detail = f"<{MIN_CHARS} chars"
        return Prepared(
            path, blob, "skipped", schema.SKIPPED_SHORT, detail, problems=problems, document=kept
        )
    chunks = chunk_document(doc, max_size=opts.chunk_size, overlap=opts.chunk_overlap)
    extra_title = doc.fm_title if doc.fm_title and doc.fm_title != doc.display_title else None
    rows = tuple(
        db.ChunkRow(
            c.title,
            c.section_path,
            c.content,
            _extra(c.content, searchable_content(doc, c)),
            extra_title,
        )
        for c in chunks
    )
    return Prepared(
        path,
        blob,
        "indexed",
        rows=rows,
        title=doc.display_title,
        category=doc.category,
        audience=doc.audience,
        tags=doc.tags,
        relations=linkmap.raw_relations(doc),
        problems=problems,
        document=kept,
    )


_OPTS: Options | None = None  # set in each worker process by _init


def _init(opts: Options) -> None:
    global _OPTS
    _OPTS = opts


def _work_batch(batch: list[Job]) -> list[Prepared]:
    assert _OPTS is not None
    return [prepare(job, _OPTS) for job in batch]


def prepare_all(jobs: Sequence[Job], opts: Options) -> Iterator[Prepared]:
    """Prepared files in job order; large batches are parsed by forked worker processes.

    Workers are forked before they touch anything but the files, and never use the
    parent's SQLite connection; a platform without fork parses in-process.
    """
    workers = min(2, os.cpu_count() or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2 or "fork" not in _start_methods():
        yield from (prepare(job, opts) for job in jobs)
        return
    import multiprocessing
    from collections import deque

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers, initializer=_init, initargs=(opts,)) as pool:
        # A bounded window of batches in flight: workers run ahead of the writer by at most
        # WINDOW batches, so parsed chunks never pile up in the main process's memory.
        batches = [jobs[i : i + BATCH] for i in range(0, len(jobs), BATCH)]
        pending: deque[AsyncResult[list[Prepared]]] = deque()
        for batch in batches:
            pending.append(pool.apply_async(_work_batch, (batch,)))
            if len(pending) >= WINDOW:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


def git_blob_ids(
    ws: Workspace, paths: Sequence[str], *, saw_attributes: bool
) -> dict[str, str] | None:
    """Blob ids from git when a content filter (autocrlf, eol, .gitattributes) could make
    them differ from the plain hash of a file's bytes; None when the plain hash is exact."""
    if not ws.is_git or not paths:
        return None
    from kenso_git.gitconfig import filters_may_apply
    from kenso_git.gitconfig import read_config

    if not filters_may_apply(ws, read_config(ws), saw_attributes=saw_attributes):
        return None
    from kenso_git import gitrepo

    return gitrepo.worktree_blob_ids(ws, paths)


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()
