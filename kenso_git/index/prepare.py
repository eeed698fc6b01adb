"""One file -> everything the index needs from it, without touching the database. Pure.

`prepare` reads, identifies (git blob id), parses and chunks one file. It runs in the
indexing process for small runs and in forked worker processes for large ones, so a cold
ingest uses both cores: workers parse while the main process writes SQLite.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import BinaryIO
from typing import NoReturn
from typing import Protocol

from kenso_git.errors import WorkerError
from kenso_git.records import NamedTuple
from kenso_git.repo.discover import Read
from kenso_git.repo.discover import Skip
from kenso_git.repo.discover import SourceFile
from kenso_git.repo.discover import document_from_bytes
from kenso_git.repo.discover import read_file
from kenso_git.repo.status import FileStatus
from kenso_git.store.chunks import ChunkRow
from kenso_git.text.parse import Document
from kenso_git.text.titlewords import document_words

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.index.report import IngestReport
    from kenso_git.repo.workspace import Workspace

MIN_CHARS = 50  # files whose trimmed text is shorter are not indexed (kenso's floor)
PARALLEL_FROM = 300  # files to parse before worker processes pay for themselves
# Worker k parses batches k, k + 2, ... of BATCH files and runs ahead of the writer by what
# its pipe holds (PIPE_BYTES, ~120 files of pickled chunks): enough that the workers do not
# stall while the main process runs an FTS batch, little enough that parsed chunks cannot
# pile up in memory.
BATCH = 32
FIRST_BATCHES = (8, 8, 16, 16)  # the writer waits for the first batch: keep it short
PIPE_BYTES = 1 << 20  # Linux's default ceiling for an unprivileged F_SETPIPE_SZ
_SIGTERM = 15  # the same on every POSIX system; `signal` is not imported for it


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
    rows: tuple[ChunkRow, ...] = ()
    title: str | None = None
    category: str = ""
    audience: str = "all"
    tags: tuple[str, ...] = ()
    labels: str | None = None  # the search extra all its chunks share (text.chunk.search_labels)
    relations: str | None = None
    problems: tuple[str, ...] = ()  # "line: message" warnings
    document: object | None = None  # the Document, or its Options.digest
    words: tuple[str, ...] = ()  # its typo-correction words (text.titlewords), for doc_words
    # the stat data of the file actually read, when it is not the SourceFile's (#27): the
    # files row must describe the file the text came from; RACY: read it again next time
    seen: tuple[int, int, int, int] | None = None


# stat data no file has: the row of a file that changed while it was read never matches the
# file's own, so the next sync (or query-time check) reads it again
RACY = (-1, -1, -1, -1)


class Digest(Protocol):
    """What a run keeps of each document it parses instead of the document itself: the lint
    summary's first half (lint/streamed.py, #32)."""

    def __call__(self, doc: Document) -> object:
        """What to keep of `doc`, computed where it is parsed (a forked worker inherits
        the digest)."""

    def hold(self, kept: object) -> object:
        """What the run's report holds of `kept`, in the writer's process (a large run's
        first halves are written out to a file rather than held in memory)."""

    def parsed_all(self, ws: Workspace, settings: Settings, report: IngestReport) -> None:
        """Every document the run parses is parsed and held (`report.documents`), and the
        writer is about to finish: work that needs them all may start beside it."""


class Options(NamedTuple):
    chunk_size: int
    chunk_overlap: int
    max_file_size: int
    keep_documents: bool
    digest: Digest | None = None  # what to keep of each parsed document instead of itself


def prepare(job: Job, opts: Options) -> Prepared:
    """Identify, and when it changed, parse and chunk one file."""
    from kenso_git.repo.git import blob_id

    sf = job.sf
    read: Read | Skip | None = None
    if job.use_git_ids:
        blob = job.known_blob
        if blob is None:
            return Prepared(sf.path, "", "skipped", FileStatus.UNREADABLE, "cannot be hashed")
    else:
        read = read_file(sf, opts.max_file_size)
        if isinstance(read, Skip):
            return _skipped(read, "")
        blob = blob_id(read.data)
    if blob == job.stored_blob:
        seen = read.seen if isinstance(read, Read) else None
        return Prepared(sf.path, blob, "unchanged", seen=seen)
    if read is None:
        read = read_file(sf, opts.max_file_size)
        if isinstance(read, Skip):
            return _skipped(read, blob)
        # git hashed the file before this read: a save in between would pair one
        # version's id with another's text, and later syncs would call it unchanged
        # for good. The id stored is the id of the bytes parsed (#26).
        from kenso_git.repo.git import filtered_blob_id

        blob = filtered_blob_id(sf.root, sf.path, read.data)
        if blob == job.stored_blob:
            return Prepared(sf.path, blob, "unchanged", seen=read.seen)
    if isinstance(read, Skip):
        return _skipped(read, blob)
    return _parse(sf.path, blob, read.data, opts, read.seen)


def _skipped(skip: Skip, blob: str) -> Prepared:
    seen = RACY if skip.racy else None
    return Prepared(skip.path, blob, "skipped", skip.reason, skip.detail, seen=seen)


def _parse(
    path: str,
    blob: str,
    data: bytes,
    opts: Options,
    seen: tuple[int, int, int, int] | None = None,
) -> Prepared:
    from kenso_git.text import links
    from kenso_git.text.chunk import chunk_document
    from kenso_git.text.chunk import search_labels

    doc = document_from_bytes(path, data)
    problems = tuple(f"{p.line}: {p.message}" for p in doc.problems)
    kept = opts.digest(doc) if opts.digest is not None else doc if opts.keep_documents else None
    if len(doc.text.strip()) < MIN_CHARS:
        detail = f"<{MIN_CHARS} chars"
        return Prepared(
            path,
            blob,
            "skipped",
            FileStatus.SHORT,
            detail,
            problems=problems,
            document=kept,
            seen=seen,
        )
    chunks = chunk_document(doc, max_size=opts.chunk_size, overlap=opts.chunk_overlap)
    extra_title = doc.fm_title if doc.fm_title and doc.fm_title != doc.display_title else None
    labels, own = search_labels(doc, chunks)
    rows = tuple(
        ChunkRow(c.title, c.section_path, c.content, extra, extra_title, expanded=True)
        for c, extra in zip(chunks, own, strict=True)
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
        labels=labels,
        relations=links.raw_relations(doc),
        problems=problems,
        document=kept,
        words=document_words([*(c.title for c in chunks), extra_title], doc.category, doc.tags),
        seen=seen,
    )


def prepare_all(jobs: Sequence[Job], opts: Options) -> Iterator[Prepared]:
    """Prepared files in job order; large runs are parsed by two forked worker processes.

    Worker k parses batches k, k + 2, ... and writes each batch's results, pickled, to its
    own pipe; the main process reads the batches back in order while it writes SQLite.
    A full pipe (1 MB) makes a worker wait, so parsed chunks never pile up in memory.
    Workers never touch the parent's SQLite connection and leave with `os._exit`.
    No `multiprocessing.Pool`: its three helper threads cost the writer ~0.15 s of CPU
    per cold ingest of 1,600 files. A platform without fork parses in-process.

    Raises:
        WorkerError: a worker process failed or died; no result of it is used.
    """
    workers = min(2, os.cpu_count() or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2 or not hasattr(os, "fork"):
        yield from (prepare(job, opts) for job in jobs)
        return
    import pickle

    batches = _batches(jobs)
    children: list[tuple[int, BinaryIO]] = []
    try:
        for k in range(workers):
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read_fd)
                for _, earlier in children:
                    earlier.close()
                _work(write_fd, batches[k::workers], opts)
            os.close(write_fd)
            children.append((pid, os.fdopen(read_fd, "rb")))
        for index in range(len(batches)):
            status, payload = pickle.loads(_read_record(children[index % workers][1]))
            if status != "ok":
                raise WorkerError(
                    f"parsing in a worker process failed:\n{payload}",
                    hint="the index was left as it was; please report this with the trace",
                )
            yield from payload
    finally:
        _stop(children)


def _batches(jobs: Sequence[Job]) -> list[Sequence[Job]]:
    """Jobs cut into batches: small ones first, so the writer starts while workers warm up."""
    out: list[Sequence[Job]] = []
    start = 0
    for size in (*FIRST_BATCHES, *[BATCH] * (len(jobs) // BATCH + 1)):
        if start >= len(jobs):
            break
        out.append(jobs[start : start + size])
        start += size
    return out


def _work(write_fd: int, batches: list[Sequence[Job]], opts: Options) -> NoReturn:
    """A worker's whole life: parse its batches, write each as one record, exit."""
    import pickle

    code = 0
    try:
        import fcntl
        import hashlib  # noqa: F401  # repo.git.blob_id then hashes with OpenSSL's SHA-1
        import signal

        # A server that forks us may handle SIGTERM itself (uvicorn does): a worker must
        # stop when `_stop` asks, and die with the terminal's Ctrl-C like any child.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

        grow = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
        if grow is not None:
            with contextlib.suppress(OSError):  # a larger pipe is an optimisation
                fcntl.fcntl(write_fd, grow, PIPE_BYTES)
        # Buffered: BufferedWriter.write retries partial pipe writes, a raw write does not.
        with os.fdopen(write_fd, "wb") as out:
            for batch in batches:
                try:
                    record: tuple[str, object] = ("ok", [prepare(job, opts) for job in batch])
                except Exception:  # a bug: report it with its traceback, then stop
                    import traceback

                    record = ("error", traceback.format_exc())
                data = pickle.dumps(record, pickle.HIGHEST_PROTOCOL)
                out.write(len(data).to_bytes(8, "little"))
                out.write(data)
                out.flush()  # the writer is waiting for this batch
                if record[0] != "ok":
                    break
    except BaseException:  # BrokenPipeError when the parent stopped reading, Ctrl-C, ...
        code = 1
    os._exit(code)


def _read_record(stream: BinaryIO) -> bytes:
    header = stream.read(8)
    size = int.from_bytes(header, "little") if len(header) == 8 else -1
    data = stream.read(size) if size >= 0 else b""
    if size < 0 or len(data) != size:
        raise WorkerError(
            "a parsing worker process stopped early (killed, or out of memory?)",
            hint="the index was left as it was; run the command again",
        )
    return data


def _stop(children: list[tuple[int, BinaryIO]]) -> None:
    """Close the pipes, stop workers still running (the caller gave up early), reap all."""
    for _, stream in children:
        stream.close()
    for pid, _ in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, _SIGTERM)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def git_blob_ids(
    ws: Workspace, paths: Sequence[str], *, saw_attributes: bool
) -> dict[str, str] | None:
    """Blob ids from git when a content filter (autocrlf, eol, .gitattributes) could make
    them differ from the plain hash of a file's bytes; None when the plain hash is exact."""
    if not ws.is_git or not paths:
        return None
    from kenso_git.repo.gitconfig import filters_may_apply
    from kenso_git.repo.gitconfig import read_config

    if not filters_may_apply(ws, read_config(ws), saw_attributes=saw_attributes):
        return None
    from kenso_git.repo import git

    return git.worktree_blob_ids(ws, paths)
