"""`regex_search`: an RE2 pattern over the text of the scoped, indexed documents.

Documents are read from the work tree in path order (the index says which files are docs;
the scope gate says which of them the caller may see), and each matching line is one hit,
with its 1-based line number. The pattern is compiled before any file is read. A page stops
reading as soon as it holds one hit more than it returns, so `total` is then a lower bound.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.docmeta import Doc
from kenso_git.search.grep import LineHit
from kenso_git.search.grep import Pattern
from kenso_git.search.grep import compile_pattern
from kenso_git.search.grep import line_hits
from kenso_git.search.pagination import AgentHit
from kenso_git.search.pagination import AgentPage

PathFilter = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class RegexRequest:
    """What the `regex_search` tool was asked."""

    pattern: str
    page_size: int | None = None
    cursor: str | None = None
    path: str | None = None
    ext: str | None = None


def _wanted(doc: Doc, request: RegexRequest, path_filter: PathFilter | None) -> bool:
    if path_filter is not None and not path_filter(doc.path):
        return False
    folder = (request.path or "").strip().strip("/")
    if folder not in ("", ".") and not (doc.path == folder or doc.path.startswith(folder + "/")):
        return False
    ext = (request.ext or "").lower().lstrip(".")
    return not ext or doc.path.lower().endswith("." + ext)


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    """The file's bytes, or None when it is gone, a symbolic link, too large or binary."""
    try:
        fd = os.open(root / rel, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit or b"\x00" in data[:8192]:
        return None
    return data


def regex_search(
    conn: sqlite3.Connection,
    request: RegexRequest,
    *,
    root: Path,
    max_bytes: int,
    path_filter: PathFilter | None = None,
) -> AgentPage:
    """One page of the lines matching `request.pattern`.

    Raises:
        PatternError: the pattern is empty, too long or refused by RE2.
        CursorError: the cursor is malformed or from another request.
    """
    pattern = compile_pattern(request.pattern)
    page_size = pagination.clamp_page(request.page_size)
    check = pagination.request_check("regex", request.pattern, request.path, request.ext)
    offset = pagination.read_offset(request.cursor, check)
    docs = sorted(
        (d for d in docmeta.load(conn).values() if _wanted(d, request, path_filter)),
        key=lambda d: d.path,
    )
    as_of = docmeta.synced_at(conn)
    wanted = offset + page_size + 1
    hits: list[AgentHit] = []
    seen = 0
    for doc, hit in _all_hits(docs, root, max_bytes, pattern):
        seen += 1
        if seen > offset:
            hits.append(_hit(doc, hit))
        if seen >= wanted:
            break
    complete = seen < wanted
    return pagination.make_page(
        hits,
        mode="regex",
        page_size=page_size,
        total=seen,
        lower_bound=not complete,
        more_after=not complete,
        cursor_for=lambda n: (
            pagination.offset_cursor(offset + n, check)
            if offset + n < pagination.OFFSET_CAP
            else None
        ),
        as_of=as_of,
    )


def _all_hits(
    docs: list[Doc], root: Path, max_bytes: int, pattern: Pattern
) -> Iterator[tuple[Doc, LineHit]]:
    for doc in docs:
        data = _read(root, doc.path, max_bytes)
        if data is None:
            continue
        for hit in line_hits(pattern, data):
            yield doc, hit


def _hit(doc: Doc, hit: LineHit) -> AgentHit:
    snippet, cut = pagination.cut_snippet(hit.text, hit.column)
    return {
        "path": doc.path,
        "score": 1.0,
        "snippet": snippet,
        "snippet_truncated": cut,
        "match_type": "Regex",
        "size": doc.size,
        "modified": doc.modified,
        "title": doc.title,
        "section": hit.section or None,
        "line": hit.line,
    }
