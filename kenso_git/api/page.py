"""A page's bytes as the agent tools serve them: refused when binary, as ingest skips it,
and read as UTF-8 whatever Unicode encoding a byte-order mark names, as ingest reads it.
And a page of the work tree as `get_doc` serves it when the index cannot take its edit
(`work_tree_doc`): read through the scope gate, parsed as the indexer parses it. And
whether a page whose stat data cannot vouch for it still holds the indexed bytes
(`racy_unchanged`)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import DocumentNotFoundError
from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.repo.safeopen import read_capped
from kenso_git.text.parse import as_utf8
from kenso_git.text.parse import looks_binary

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.search.results import DocResult
    from kenso_git.store.files import FileRow

FileStat = Callable[[str], os.stat_result | None]


def page_bytes(rel: str, data: bytes) -> bytes:
    """The UTF-8 bytes of the page at `rel` read as `data` (a UTF-16 or UTF-32 page,
    which ingest indexes, is transcoded: its NUL bytes do not make it binary).

    Raises:
        ScopeError: `data` is not text (NUL bytes and no byte-order mark).
    """
    if looks_binary(data):
        raise ScopeError(f"path refused (binary): {rel!r} is not text", rule="binary", path=rel)
    return as_utf8(data)


def work_tree_doc(
    root: Path,
    rel: str,
    file_stat: FileStat | None,
    settings: Settings,
    max_length: int | None,
) -> DocResult:
    """The `get_doc` payload of the page at `rel` as the work tree holds it now: what the
    index would answer once it synced the page (its text chunked and joined as the index
    joins it), cut to `max_length` characters as `get_doc` cuts it.

    The file read is the one at the path's real path inside the checkout, opened with no
    link followed, and only when `file_stat` (the scope gate's `Scope.file_stat`) finds
    that very file at the path's approved real path.

    Raises:
        DocumentNotFoundError: nothing is there, or too little text for the index to hold.
        ScopeError: the gate refuses the path, or the file is binary or over max-file-size.
        KensoError: it cannot be read, or kept changing while it was.
    """
    from kenso_git.index.prepare import MIN_CHARS
    from kenso_git.repo.discover import document_from_bytes
    from kenso_git.text.chunk import chunk_document

    data = page_bytes(rel, _read(root, rel, file_stat, settings.max_file_size))
    doc = document_from_bytes(rel, data)
    if len(doc.text.strip()) < MIN_CHARS:
        raise DocumentNotFoundError(rel)  # a sync would drop it from the index
    chunks = chunk_document(doc, max_size=settings.chunk_size, overlap=settings.chunk_overlap)
    content = "\n\n".join(chunk.content for chunk in chunks)
    tags = [tag for tag in doc.tags if tag]
    payload: DocResult = {
        "title": doc.display_title or chunks[0].title,
        "content": content,
        "category": doc.category,
        "audience": doc.audience,
        "tags": tags or None,
    }
    if max_length and len(content) > max_length:
        payload["content"] = content[:max_length] + "..."
        payload["truncated"] = True
    return payload


def racy_unchanged(root: Path, rel: str, file_stat: FileStat | None, row: FileRow) -> bool:
    """Whether the file at `rel`, whose stat data matches `row` but cannot vouch for it
    (`index.refresh.disk_state` says `racy`: its mtime is not before the index read it,
    as a file stamped ahead of the clock stays until the clock passes it), still holds
    the bytes the row's text was read from: the blob id of its bytes, read through the gate
    as `work_tree_doc` reads them, is the row's. This is how git settles a racy entry.

    The file is read and hashed once per call (linear in its size), and the verdict is
    not kept: an edit that leaves the stat data as it was is still caught on the next.
    The query-time check settles a racy file the same way, read-only (`index.refresh`).
    False when the file cannot be read, is not the row's, or changed while it was read.
    """
    from kenso_git.index.refresh import disk_state
    from kenso_git.repo.git import is_indexed_bytes

    try:
        fd, before = _open(root, rel, file_stat)
    except KensoError:
        return False
    try:
        if disk_state(row, before) == "changed":  # not the file the row describes
            return False
        data = read_capped(fd, before.st_size, row.size + 1)
        after = os.fstat(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    if len(data) != row.size or disk_state(row, after) == "changed":
        return False  # written while it was read: not the bytes the stat data describes
    return is_indexed_bytes(root, rel, data, row.blob_id)


def _read(root: Path, rel: str, file_stat: FileStat | None, limit: int) -> bytes:
    """At most `limit` + 1 bytes of the regular file at `rel`'s real path inside `root`,
    opened with no link followed on the way (nothing outside the checkout is ever opened),
    and, with a gate, only when it is the file the gate approves.

    Raises:
        DocumentNotFoundError, ScopeError, KensoError: see `work_tree_doc`.
    """
    fd, st = _open(root, rel, file_stat)
    try:
        data = read_capped(fd, st.st_size, limit + 1)
    except OSError as err:
        raise _unreadable(rel, err) from err
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ScopeError(
            f"path refused (too-large): {rel!r} is larger than max-file-size ({limit} bytes)",
            rule="too-large",
            path=rel,
        )
    return data


def _open(root: Path, rel: str, file_stat: FileStat | None) -> tuple[int, os.stat_result]:
    """A descriptor of the file at `rel`'s real path inside `root`, and its stat data:
    opened with no link followed on the way, and, with a gate, only when it is the file the
    gate approves. The caller closes it.

    Raises:
        DocumentNotFoundError, ScopeError, KensoError: see `work_tree_doc`.
    """
    from kenso_git.repo.safeopen import open_beneath

    real = os.path.relpath(os.path.realpath(root / rel), os.path.realpath(root))
    if real == os.curdir or real == os.pardir or real.startswith(os.pardir + os.sep):
        raise _unreadable(rel, OSError(errno.ELOOP, "leads out of the checkout"))
    try:
        fd = open_beneath(str(root), real.replace(os.sep, "/"))
    except OSError as err:
        raise _unreadable(rel, err) from err
    try:
        st = os.fstat(fd)
        if file_stat is not None:
            # the descriptor holds its file: when the gate, asked after the open, finds that
            # very file at the path's approved real path, what is read is what it approved
            approved = file_stat(rel)
            if approved is None or (approved.st_dev, approved.st_ino) != (st.st_dev, st.st_ino):
                raise KensoError(f"{rel} changed while it was read", hint="read it again", path=rel)
    except OSError as err:
        os.close(fd)
        raise _unreadable(rel, err) from err
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _unreadable(rel: str, err: OSError) -> KensoError:
    if err.errno == errno.ENOENT:
        return DocumentNotFoundError(rel)
    if err.errno in (errno.ELOOP, errno.ENOTDIR):
        return ScopeError(
            f"path refused (symlink-escape): {rel!r} is reached through a symbolic link",
            rule="symlink-escape",
            path=rel,
        )
    return KensoError(
        f"cannot read {rel}: {err.strerror or err}",
        hint="check the file's permissions, then read it again",
        path=rel,
    )
