"""The agent surface's `search`: the query language over the index, ranked or exhaustive.

A document matches when one of its chunks holds every word and phrase (FTS5, the index's
stemming tokenizer) or, in ranked mode, when every word appears in its path; then every
filter of the query must pass and no negated word, phrase or filter may match. Ranked pages
order by score (ties by path), exhaustive pages by path; each call reads one snapshot.
`path_filter` is the caller's scope gate: a document it refuses is never a candidate.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass

from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.docmeta import Doc
from kenso_git.search.grep import compile_pattern
from kenso_git.search.pagination import AgentHit
from kenso_git.search.pagination import AgentPage
from kenso_git.search.query import clean
from kenso_git.search.query import has_token
from kenso_git.search.querylang import Filter
from kenso_git.search.querylang import QuerySyntaxError
from kenso_git.search.querylang import Term
from kenso_git.search.querylang import parse
from kenso_git.store.schema import BM25_WEIGHTS

PathFilter = Callable[[str], bool]
MODES = ("ranked", "exhaustive")
BOTH_BOOST = 1.5
FILENAME_SCORE = 0.5
_BM25 = "bm25(chunks_fts, {})".format(", ".join(str(w) for w in BM25_WEIGHTS))
_IDS = "(SELECT value FROM json_each(?))"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What the `search` tool was asked: the query, the page and the conveniences."""

    query: str
    page_size: int | None = None
    cursor: str | None = None
    mode: str = "ranked"
    path: str | None = None
    ext: str | None = None
    modified_after: str | None = None
    tags: tuple[str, ...] = ()

    def full_query(self) -> str:
        """The query with the conveniences appended as filters (`path` -> `in:"..."`)."""
        extra = []
        if self.path:
            extra.append('in:"{}"'.format(self.path.replace('"', '\\"')))
        if self.ext:
            extra.append(f"ext:{self.ext}")
        if self.modified_after:
            extra.append(f"modified:{self.modified_after}")
        extra += [f'tag:"{t}"' for t in self.tags]
        return " ".join([self.query.strip(), *extra]).strip()


@dataclass(frozen=True, slots=True)
class _Candidate:
    doc: Doc
    score: float
    match_type: str
    chunk_id: int | None  # the best chunk (None: the document's first)
    section: str | None


def search(
    conn: sqlite3.Connection,
    request: SearchRequest,
    *,
    path_filter: PathFilter | None = None,
    now: float | None = None,
) -> AgentPage:
    """One page of `request`.

    Raises:
        QuerySyntaxError: the query (or a convenience) does not parse, or is empty.
        PatternError: a `re:` filter is refused by RE2.
        CursorError: the cursor is malformed or from another request.
    """
    if request.mode not in MODES:
        raise QuerySyntaxError(
            "unknown mode", token=request.mode, column=1, hint="mode is ranked or exhaustive"
        )
    text = request.full_query()
    query = parse(text, now=now)
    if not query.terms and not query.filters:
        raise QuerySyntaxError(
            "the query is empty",
            token=text,
            column=1,
            hint="search for a word, or list documents with a filter such as in:docs",
        )
    page_size = pagination.clamp_page(request.page_size)
    check = pagination.request_check("search", text, request.mode)
    exhaustive = request.mode == "exhaustive"
    after = pagination.read_keyset(request.cursor, check) if exhaustive else None
    offset = 0 if exhaustive else pagination.read_offset(request.cursor, check)
    docs = docmeta.load(conn)
    allowed = [d for d in docs.values() if path_filter is None or path_filter(d.path)]
    candidates = _match(conn, query.positive_terms(), allowed, exhaustive)
    candidates = _apply_filters(conn, query.filters, candidates)
    candidates = _drop_negated(conn, [t for t in query.terms if t.negated], candidates)
    as_of = docmeta.synced_at(conn)
    if exhaustive:
        ordered = sorted((c for c in candidates if after is None or c.doc.path > after), key=_path)
        window = ordered[: pagination.OFFSET_CAP]
        chosen = window[:page_size]
        return pagination.make_page(
            _hits(conn, chosen, query.positive_terms()),
            mode=request.mode,
            page_size=page_size,
            total=len(window),
            lower_bound=after is not None or len(ordered) > len(window),
            more_after=len(ordered) > page_size,
            cursor_for=lambda n: pagination.keyset_cursor(chosen[n - 1].doc.path, check),
            as_of=as_of,
        )
    ranked = sorted(candidates, key=_rank)
    capped = ranked[: pagination.OFFSET_CAP]
    chosen = capped[offset : offset + page_size]
    return pagination.make_page(
        _hits(conn, chosen, query.positive_terms()),
        mode=request.mode,
        page_size=page_size,
        total=len(capped),
        lower_bound=len(ranked) > len(capped),
        more_after=len(ranked) > offset + page_size,
        cursor_for=lambda n: (
            pagination.offset_cursor(offset + n, check)
            if offset + n < pagination.OFFSET_CAP
            else None
        ),
        as_of=as_of,
    )


def _path(c: _Candidate) -> str:
    return c.doc.path


def _rank(c: _Candidate) -> tuple[float, int, str]:
    return (-c.score, -c.doc.modified if c.match_type == "Filter" else 0, c.doc.path)


def fts_expression(terms: Iterable[Term]) -> str | None:
    """The FTS5 expression that needs every term (each quoted), or None when no term has
    a character the tokenizer keeps."""
    parts = [f'"{clean(t.text)}"' for t in terms if has_token(clean(t.text))]
    return " AND ".join(parts) if parts else None


def _content_hits(conn: sqlite3.Connection, expression: str) -> dict[str, tuple[float, int, str]]:
    """file path -> (score, best chunk id, its section) of the documents matching."""
    # bm25() cannot sit inside an aggregate: rank in a subquery, then keep each file's best
    sql = (
        "SELECT file_path, MIN(rank), id, section_path FROM ("
        f"SELECT c.file_path, {_BM25} AS rank, c.id, c.section_path FROM chunks_fts "
        "JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? "
        "ORDER BY rank) GROUP BY file_path"
    )
    return {
        path: (round(-rank, 6), chunk_id, section or "")
        for path, rank, chunk_id, section in conn.execute(sql, (expression,))
    }


def _match(
    conn: sqlite3.Connection, terms: tuple[Term, ...], docs: list[Doc], exhaustive: bool
) -> list[_Candidate]:
    expression = fts_expression(terms)
    if expression is None:
        return [_Candidate(d, 0.0, "Filter", None, None) for d in docs]
    content = _content_hits(conn, expression)
    words = [t.text.casefold() for t in terms if not t.phrase]
    by_name = not exhaustive and len(words) == len(terms)
    out = []
    for doc in docs:
        hit = content.get(doc.path)
        named = by_name and all(w in doc.path.casefold() for w in words)
        if hit is not None:
            score = round(hit[0] * BOTH_BOOST, 6) if named else hit[0]
            out.append(_Candidate(doc, score, "Both" if named else "Content", hit[1], hit[2]))
        elif named:
            out.append(_Candidate(doc, FILENAME_SCORE, "FileName", None, None))
    return out


def _passes(conn: sqlite3.Connection, f: Filter, docs: list[Doc]) -> set[str]:
    """The paths of `docs` that the filter (not negated) lets through."""
    if f.name == "in":
        folder = f.value.strip().strip("/")
        if folder in ("", "."):
            return {d.path for d in docs}
        return {d.path for d in docs if d.path == folder or d.path.startswith(folder + "/")}
    if f.name == "ext":
        return {d.path for d in docs if d.path.lower().endswith("." + f.value)}
    if f.name == "tag":
        tag = f.value.casefold()
        return {d.path for d in docs if tag in d.tags}
    if f.name == "category":
        category = f.value.casefold()
        return {d.path for d in docs if (d.category or "").casefold() == category}
    if f.name == "modified":
        return {d.path for d in docs if d.modified >= f.number}
    if f.name == "size":
        return {d.path for d in docs if _compare(d.size, f.op, f.number)}
    pattern = compile_pattern(f.value)
    texts = docmeta.texts(conn, [d.path for d in docs])
    return {path for path, text in texts if pattern.matches(text)}


def _compare(size: int, op: str, number: int) -> bool:
    if op == ">":
        return size > number
    if op == ">=":
        return size >= number
    if op == "<":
        return size < number
    if op == "<=":
        return size <= number
    return size == number


def _apply_filters(
    conn: sqlite3.Connection, filters: tuple[Filter, ...], candidates: list[_Candidate]
) -> list[_Candidate]:
    # regular expressions read document text: run them last, over the fewest documents
    for f in sorted(filters, key=lambda f: f.name == "re"):
        docs = [c.doc for c in candidates]
        passing = _passes(conn, f, docs)
        candidates = [c for c in candidates if (c.doc.path in passing) != f.negated]
    return candidates


def _drop_negated(
    conn: sqlite3.Connection, negated: list[Term], candidates: list[_Candidate]
) -> list[_Candidate]:
    for term in negated:
        expression = fts_expression([term])
        if expression is None or not candidates:
            continue
        matching = _content_hits(conn, expression)
        candidates = [c for c in candidates if c.doc.path not in matching]
    return candidates


def _hits(
    conn: sqlite3.Connection, chosen: list[_Candidate], terms: tuple[Term, ...]
) -> list[AgentHit]:
    ids = [c.chunk_id if c.chunk_id is not None else c.doc.first_chunk for c in chosen]
    rows = conn.execute(
        f"SELECT id, content, section_path FROM chunks WHERE id IN {_IDS}", (json.dumps(ids),)
    )
    chunks = {r[0]: (r[1] or "", r[2] or "") for r in rows}
    needles = [t.text.casefold() for t in terms]
    out: list[AgentHit] = []
    for candidate, chunk_id in zip(chosen, ids, strict=True):
        content, section = chunks.get(chunk_id, ("", ""))
        folded = content.casefold()
        found = [i for i in (folded.find(n) for n in needles) if i >= 0]
        snippet, cut = pagination.cut_snippet(content, min(found) if found else 0)
        doc = candidate.doc
        out.append(
            {
                "path": doc.path,
                "score": candidate.score,
                "snippet": snippet,
                "snippet_truncated": cut,
                "match_type": candidate.match_type,
                "size": doc.size,
                "modified": doc.modified,
                "title": doc.title,
                "section": candidate.section or section or None,
            }
        )
    return out
