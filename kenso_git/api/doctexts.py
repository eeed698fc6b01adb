"""What the `re:` filter of the agent `search` reads (#49): the text `regex_search` greps.

In the checkout, each candidate's file as the work tree holds it: opened beneath the root
with no link followed, a doc indexed through a link at the real path the scope gate
approved (`open_file`, `Scope.open_file`), at most `max-file-size` bytes, never a binary
file, a UTF-16 page read as UTF-8 (`regex_search._read`, the one reader of both). The
candidates are the documents the caller's gate let through: a file it refuses is never read.

At a revision (a copy `api/revision.py` made, whose write generation is negative), the
file as the revision holds it: the blob its `files` row names, as stored (`git show
REV:path`; a git-lfs page's pointer: no filter driver runs, as `read_at_revision` reads
it), never the work tree's. Blobs are read a batch at a time with one `git cat-file --batch`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path

from kenso_git.repo.workspace import Workspace
from kenso_git.search.lang.docfilter import Texts
from kenso_git.store import budget
from kenso_git.store import schema
from kenso_git.store.files import load_files
from kenso_git.store.meta import read_value
from kenso_git.text.parse import as_utf8
from kenso_git.text.parse import looks_binary

OpenFile = Callable[[str], int]
BATCH_BYTES = 4 << 20  # the most blob bytes one `git cat-file --batch` reads at a revision
BATCH_PATHS = 512


def texts_for(
    conn: sqlite3.Connection, ws: Workspace, max_bytes: int, open_file: OpenFile | None
) -> Texts:
    """Where `re:` reads the documents of the index `conn` reads: a revision's blobs for a
    copy made for a revision, else the work tree's files."""
    if is_revision_copy(conn):
        return revision_texts(conn, ws, max_bytes)
    return work_tree_texts(ws.root, max_bytes, open_file)


def is_revision_copy(conn: sqlite3.Connection) -> bool:
    """Whether the index is a copy answering for another revision: its write generation is
    negative, which a checkout index's (a time in ns) never is (`index/atref.py`)."""
    value = read_value(conn, schema.META_GENERATION)
    return value is not None and value.startswith("-")


def work_tree_texts(root: Path, max_bytes: int, open_file: OpenFile | None) -> Texts:
    """The files as the work tree holds them, read as `regex_search` reads them."""
    from kenso_git.search.regex.regex_search import _read as read_file  # its one reader

    base = str(root)

    def read(paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        for path in paths:
            budget.check()  # a file's read is the call's, as each RE2 window is
            data = read_file(base, path, max_bytes, open_file)
            if data is not None:
                yield path, data

    return Texts(read)  # no key: the files may change while the index does not


def revision_texts(conn: sqlite3.Connection, ws: Workspace, max_bytes: int) -> Texts:
    """The files as the revision the copy `conn` reads holds them (its `files` rows name
    their blobs: the revision's, a link's target's where the copy followed one)."""
    generation = read_value(conn, schema.META_GENERATION)

    def read(paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        rows = load_files(conn, paths)
        batch: dict[str, str] = {}
        size = 0
        for path in paths:
            row = rows.get(path)
            if row is None or not row.blob_id:
                continue
            batch[path] = row.blob_id
            size += max(0, row.size)
            if size >= BATCH_BYTES or len(batch) >= BATCH_PATHS:
                yield from _blobs(ws, batch, max_bytes)
                batch, size = {}, 0
        yield from _blobs(ws, batch, max_bytes)

    # the copy's generation names its commit, docs and settings: one key, one set of texts
    return Texts(read, ("revision", str(ws.root), generation, max_bytes))


def _blobs(ws: Workspace, batch: dict[str, str], max_bytes: int) -> Iterator[tuple[str, bytes]]:
    """(path, UTF-8 text) of the batch's blobs (path -> blob id), as stored;
    over `max_bytes` or binary: left out, as `regex_search` leaves such a file out."""
    from kenso_git.index.atref import read_blobs

    if not batch:
        return
    budget.check()
    contents = read_blobs(ws, sorted(set(batch.values())))
    for path in sorted(batch):
        data = contents[batch[path]]
        if len(data) <= max_bytes and not looks_binary(data):
            yield path, as_utf8(data)
