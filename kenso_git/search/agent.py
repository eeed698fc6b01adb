"""The agent surface's `search`: the query language over the index, ranked or exhaustive.

A document matches when one of its chunks holds every word and phrase (FTS5, the index's
stemming tokenizer) or, in ranked mode, when every word appears in its path; then every
filter of the query must pass and no negated word, phrase or filter may match. Ranked pages
order by score (ties by path), exhaustive pages by path; each call reads one snapshot.
`path_filter` is the caller's scope gate: a document it refuses is never a candidate.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from kenso_git.search import docfilter
from kenso_git.search import docmatch
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.docmatch import fts_expression
from kenso_git.search.docmeta import Doc
from kenso_git.search.hitcache import LRU
from kenso_git.search.pagination import AgentHit
from kenso_git.search.pagination import AgentPage
from kenso_git.search.querylang import Query
from kenso_git.search.querylang import QuerySyntaxError
from kenso_git.search.querylang import Term
from kenso_git.search.querylang import parse
from kenso_git.store import budget
from kenso_git.store.schema import BM25_WEIGHTS

PathFilter = Callable[[str], bool]
MODES = ("ranked", "exhaustive")
BOTH_BOOST = 1.5
FILENAME_SCORE = 0.5
_BM25 = "bm25(chunks_fts, {})".format(", ".join(str(w) for w in BM25_WEIGHTS))
_IDS = "(SELECT value FROM json_each(?))"
RANKING_CACHE_SIZE = 32
RANKING_CACHE_CANDIDATES = 200_000  # in all: ~40 MB of candidates on a huge repository


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
    budget.check()  # the call's time budget (a query-time sync may have spent it)
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
    generation = docmeta.generation(conn)
    as_of = docmeta.synced_at(conn)
    ranking = _ranking(conn, query, exhaustive, path_filter, generation)
    terms = query.positive_terms()
    if exhaustive:
        after = pagination.read_keyset(request.cursor, check)
        start = 0 if after is None else bisect.bisect_right(ranking.paths, after)
        window = ranking.candidates[start : start + pagination.OFFSET_CAP]
        chosen = _scored(conn, terms, window[:page_size])
        return pagination.make_page(
            _hits(conn, chosen, terms),
            mode=request.mode,
            page_size=page_size,
            total=len(window),
            lower_bound=after is not None or len(ranking.candidates) - start > len(window),
            more_after=len(window) > page_size,
            cursor_for=lambda n: pagination.keyset_cursor(chosen[n - 1].doc.path, check),
            as_of=as_of,
        )
    offset = pagination.read_offset(request.cursor, check, generation)
    ranked = ranking.candidates
    capped = ranked[: pagination.OFFSET_CAP]
    chosen = capped[offset : offset + page_size]
    return pagination.make_page(
        _hits(conn, chosen, terms),
        mode=request.mode,
        page_size=page_size,
        total=len(capped),
        lower_bound=len(ranked) > len(capped),
        more_after=len(ranked) > offset + page_size,
        cursor_for=lambda n: (
            pagination.offset_cursor(offset + n, check, generation)
            if offset + n < pagination.OFFSET_CAP
            else None
        ),
        as_of=as_of,
    )


@dataclass(frozen=True, slots=True)
class _Ranking:
    candidates: list[_Candidate]  # ranked, or path-sorted (exhaustive)
    paths: list[str]  # exhaustive: the candidates' paths, for the keyset's bisect


# Every page of a query re-scored every matching chunk: the list is computed once per
# (index generation, query, mode, scope) and later pages slice it.
_RANKINGS: LRU[_Ranking] = LRU(
    RANKING_CACHE_SIZE, RANKING_CACHE_CANDIDATES, lambda r: len(r.candidates)
)


def _ranking(
    conn: sqlite3.Connection,
    query: Query,
    exhaustive: bool,
    path_filter: PathFilter | None,
    generation: tuple[str, str] | None,
) -> _Ranking:
    def make() -> _Ranking:
        allowed = _scoped(conn, path_filter, generation)
        found = _match(conn, query.positive_terms(), allowed, exhaustive)
        found = docfilter.apply_filters(conn, query.filters, found)
        found = docfilter.drop_negated(conn, [t for t in query.terms if t.negated], found)
        if exhaustive:
            found.sort(key=_path)
            return _Ranking(found, [c.doc.path for c in found])
        found.sort(key=_rank)
        return _Ranking(found, [])

    if generation is None or not _lasting(path_filter):
        return make()
    return _RANKINGS.get_or_make((generation, query, exhaustive, path_filter), make)


def _lasting(path_filter: PathFilter | None) -> bool:
    """Whether a filter can be met again: none, or a bound method such as `Scope.allows`
    (equal, and hashing equal, across calls). A per-call gate (`Scope.gate()`, a new
    closure each time) never can: caching under it only held memory, one entry per call
    (#27: 40 hostile calls a burst kept 32 rankings of up to 200,000 candidates)."""
    return path_filter is None or getattr(path_filter, "__self__", None) is not None


_SCOPED: LRU[dict[str, Doc]] = LRU(8)


def _scoped(
    conn: sqlite3.Connection, path_filter: PathFilter | None, generation: tuple[str, str] | None
) -> dict[str, Doc]:
    """path -> `Doc` of the documents the gate lets through (do not mutate: shared)."""
    docs = docmeta.load(conn)
    if path_filter is None:
        return docs

    def make() -> dict[str, Doc]:
        return {path: d for path, d in docs.items() if path_filter(path)}

    if generation is None or not _lasting(path_filter):
        return make()
    return _SCOPED.get_or_make((generation, path_filter), make)


def _path(c: _Candidate) -> str:
    return c.doc.path


def _rank(c: _Candidate) -> tuple[float, int, str]:
    return (-c.score, -c.doc.modified if c.match_type == "Filter" else 0, c.doc.path)


def _scored(
    conn: sqlite3.Connection, terms: tuple[Term, ...], chosen: list[_Candidate]
) -> list[_Candidate]:
    """The exhaustive page's candidates with their scores and best chunks. bm25 over every
    match of a common word costs more than a page may (~50 ms for 7,000 chunks): only the
    page's documents are ranked, each time a page is asked for."""
    expression = fts_expression(terms)
    if expression is None or not chosen:
        return chosen
    content = docmatch.content_hits(conn, expression, [c.doc.path for c in chosen])
    out = []
    for c in chosen:
        hit = content.get(c.doc.path)
        out.append(c if hit is None else _Candidate(c.doc, hit[0], c.match_type, hit[1], hit[2]))
    return out


def _match(
    conn: sqlite3.Connection, terms: tuple[Term, ...], allowed: dict[str, Doc], exhaustive: bool
) -> list[_Candidate]:
    expression = fts_expression(terms)
    if expression is None:
        return [_Candidate(d, 0.0, "Filter", None, None) for d in allowed.values()]
    if exhaustive:  # path order: only the page's documents are scored (`_scored`)
        paths = docmatch.content_paths(conn, expression)
        return [_Candidate(allowed[p], 0.0, "Content", None, None) for p in paths if p in allowed]
    content = docmatch.content_hits(conn, expression)
    words = [t.text.casefold() for t in terms if not t.phrase]
    named = list(allowed.values()) if len(words) == len(terms) else []
    for word in words:  # one pass per word over the survivors, no per-document generator
        named = [d for d in named if word in d.folded_path]
    by_name = {d.path for d in named}
    out = []
    for path, (score, chunk_id, section) in content.items():  # the few hits, not every doc
        doc = allowed.get(path)
        if doc is None:
            continue
        if path in by_name:
            out.append(_Candidate(doc, round(score * BOTH_BOOST, 6), "Both", chunk_id, section))
        else:
            out.append(_Candidate(doc, score, "Content", chunk_id, section))
    out += [
        _Candidate(d, FILENAME_SCORE, "FileName", None, None)
        for d in named
        if d.path not in content
    ]
    return out


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
                # bm25 of a word most documents hold is ~1e-6: 4 decimals, as search_docs
                # rounds, print as 0.0 instead of 3e-06 (#26); the order was set before
                "score": round(candidate.score, 4),
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


def clear_cache() -> None:
    """Forget every cached ranking (benchmarks measure the first page of a query cold)."""
    _RANKINGS.clear()
    _SCOPED.clear()
