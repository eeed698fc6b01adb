"""`regex_search`: an RE2 pattern over the text of the scoped, indexed documents.

Documents are read from the work tree in path order (the index says which files are docs;
the scope gate says which of them the caller may see), and each matching line is one hit,
with its 1-based line number. The pattern is compiled before any file is read; a document
lacking one of the literals every match needs (`literals.py`) is never searched. A page
stops reading as soon as it holds one hit more than it returns, so `total` is then a lower
bound, and its cursor names the (path, line) of its last hit: the next page starts there
instead of re-reading every document before it. The cursor also keeps a digest of that
document's lines up to its line: once they changed (lines added above it), the line names
another place, and the cursor is refused (`StaleLineCursorError`) rather than a hit
returned twice or passed over.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import ScopeError
from kenso_git.repo.safeopen import LINK_ERRNOS
from kenso_git.repo.safeopen import open_beneath
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.docmeta import Doc
from kenso_git.search.regex.grep import LineHit
from kenso_git.search.regex.grep import Pattern
from kenso_git.search.regex.grep import compile_pattern
from kenso_git.search.regex.grep import line_hits
from kenso_git.search.regex.literals import required_literals
from kenso_git.store import budget
from kenso_git.text.parse import as_utf8
from kenso_git.text.parse import looks_binary

if TYPE_CHECKING:
    from kenso_git.search.results import AgentHit
    from kenso_git.search.results import AgentPage

PathFilter = Callable[[str], bool]
OpenFile = Callable[[str], int]  # a read-only descriptor of the file at a root-relative path


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


def _read(root: str, rel: str, limit: int, open_file: OpenFile | None) -> bytes | None:
    """The file's bytes, or None when it is gone, too large or binary. No link is followed
    (#27: a link swapped in after the scope gate's check leads nowhere; `safeopen` follows
    none); a doc indexed through a link is read at the real path the gate approved, through
    `open_file` (`Scope.open_file`, which follows none either), when given."""
    try:
        fd = open_beneath(root, rel)
    except OSError as err:
        if open_file is None or err.errno not in LINK_ERRNOS:
            return None
        try:
            fd = open_file(rel)
        except (OSError, ScopeError):
            return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit or looks_binary(data):
        return None
    return as_utf8(data)  # lines of a UTF-16 page are matched as ingest read its text


def regex_search(
    conn: sqlite3.Connection,
    request: RegexRequest,
    *,
    root: Path,
    max_bytes: int,
    path_filter: PathFilter | None = None,
    open_file: OpenFile | None = None,
) -> AgentPage:
    """One page of the lines matching `request.pattern`; `open_file` opens a doc the index
    holds through a symbolic link (`_read`).

    Raises:
        PatternError: the pattern is empty, too long or refused by RE2.
        CursorError: the cursor is malformed or from another request.
        StaleLineCursorError: the cursor's document changed at or above its line.
    """
    pattern = compile_pattern(request.pattern)
    page_size = pagination.clamp_page(request.page_size)
    check = pagination.request_check("regex", request.pattern, request.path, request.ext)
    resume = pagination.read_line_cursor(request.cursor, check)
    docs = sorted(
        (d for d in docmeta.load(conn).values() if _wanted(d, request, path_filter)),
        key=lambda d: d.path,
    )
    if resume is not None:  # keyset: start at the cursor's document, nothing re-read
        docs = docs[bisect.bisect_left([d.path for d in docs], resume.path) :]
    as_of = docmeta.synced_at(conn)
    wanted = page_size + 1
    hits: list[AgentHit] = []
    digests: list[str] = []  # of each hit's document, its lines up to the hit's
    for doc, hit, lines in _all_hits(docs, str(root), max_bytes, pattern, open_file, resume):
        if resume is not None and doc.path == resume.path and hit.line <= resume.line:
            continue
        hits.append(_hit(doc, hit))
        digests.append(lines.upto(hit.line))
        if len(hits) >= wanted:
            break
    complete = len(hits) < wanted
    before = 0 if resume is None else resume.seen
    return pagination.make_page(
        hits,
        mode="regex",
        page_size=page_size,
        total=before + len(hits),
        lower_bound=not complete,
        more_after=not complete,
        cursor_for=lambda n: pagination.line_cursor(
            hits[n - 1]["path"], hits[n - 1].get("line", 0), before + n, digests[n - 1], check
        ),
        as_of=as_of,
    )


def _all_hits(
    docs: list[Doc],
    root: str,
    max_bytes: int,
    pattern: Pattern,
    open_file: OpenFile | None,
    resume: pagination.LineCursor | None,
) -> Iterator[tuple[Doc, LineHit, pagination.LinesDigest]]:
    """Each matching line, with the digests of its document's lines.

    Raises:
        StaleLineCursorError: `resume`'s document changed at or above its line.
    """
    needles = required_literals(pattern.source)
    for doc in docs:
        budget.check()  # one document's RE2 run is linear; the whole corpus is the budget's
        data = _read(root, doc.path, max_bytes, open_file)
        if data is None:
            continue
        lines = pagination.LinesDigest(data)
        if resume is not None and doc.path == resume.path and not _same_above(lines, resume):
            raise pagination.StaleLineCursorError(resume.text, resume.path, resume.line)
        # a document without one of the pattern's literals cannot match: RE2 skips it
        if not all(n in data for n in needles):
            continue
        for hit in line_hits(pattern, data):
            yield doc, hit, lines


def _same_above(lines: pagination.LinesDigest, resume: pagination.LineCursor) -> bool:
    """Whether the cursor's document still has the lines it had up to the cursor's."""
    return lines.upto(resume.line) == resume.lines


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
