"""The agent surface's `search`: the query language over the index, ranked or exhaustive.

Ranked mode is `search_docs`'s ranking, filtered and paged (`search.pipeline`): the words go
through the keyword cascade with its fallbacks and signals, documents whose path holds every
word follow, and every filter must pass with no negated word, phrase or filter matching; a
query of filters alone lists documents, newest first. Exhaustive mode lists, by path, every
document one of whose chunks holds every word and phrase (FTS5, the index's stemming
tokenizer). Each call reads one snapshot. `path_filter` is the caller's scope gate: a
document it refuses is never a candidate. `texts` is where `re:` reads a candidate's text
(`docfilter.Texts`: the file, as `regex_search` greps it).
"""

from __future__ import annotations

import bisect
import itertools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kenso_git.errors import UsageError
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.lang import docfilter
from kenso_git.search.lang import docmatch
from kenso_git.search.lang import pipeline
from kenso_git.search.lang.docmatch import fts_expression
from kenso_git.search.lang.gated import GatedDocs
from kenso_git.search.lang.hitcache import LRU
from kenso_git.search.lang.longquery import parse_long
from kenso_git.search.lang.pipeline import Candidate
from kenso_git.search.lang.querylang import MAX_TOKENS
from kenso_git.search.lang.querylang import Query
from kenso_git.search.lang.querylang import QuerySyntaxError
from kenso_git.search.lang.querylang import Term
from kenso_git.search.lang.querylang import parse
from kenso_git.search.ranked import rankdocs
from kenso_git.search.ranked.synonyms import Synonyms
from kenso_git.store import budget
from kenso_git.store import chunkreads
from kenso_git.store.schema import BM25_WEIGHTS

if TYPE_CHECKING:
    from kenso_git.search.results import AgentHit
    from kenso_git.search.results import AgentPage

PathFilter = Callable[[str], bool]
MODES = ("ranked", "exhaustive")
FILENAME_SCORE = 0.5
_BM25 = "bm25(chunks_fts, {})".format(", ".join(str(w) for w in BM25_WEIGHTS))
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
        return " ".join([self.query.strip(), *(text for _, _, text in self._filters())]).strip()

    def _filters(self) -> list[tuple[str, str, str]]:
        """(argument, value, filter) of each convenience given."""
        out = []
        if self.path:
            out.append(("path", self.path, 'in:"{}"'.format(self.path.replace('"', '\\"'))))
        if self.ext:
            out.append(("ext", self.ext, f"ext:{self.ext}"))
        if self.modified_after:
            out.append(("modified_after", self.modified_after, f"modified:{self.modified_after}"))
        out += [("tag", t, 'tag:"{}"'.format(t.replace('"', '\\"'))) for t in self.tags]
        return out

    def parsed(self, now: float | None = None) -> Query:
        """The query and its conveniences' filters. The query is held to the language's
        caps; each convenience to its own (`argument_chars`) and to one filter: an error
        names the argument, never a token of the text they make together.

        Raises:
            QuerySyntaxError: the query does not parse, or its phrases, negations and
                filters alone pass `MAX_TOKENS` (a longer query is read by them and its
                first distinct content words: `longquery`).
            ArgumentValueError: a convenience is too long, or not one value of its filter.
        """
        # over the word cap: its phrases, negations and filters and first content words
        query = parse_long(self.query.strip(), now=now)
        filters = list(query.filters)
        for name, value, text in self._filters():
            filters += _argument_filter(name, value, text, now).filters
        return Query(query.terms, tuple(filters), query.read_as_words)


class ArgumentValueError(UsageError):
    """A `search` argument that stands for a filter (`path`, `ext`, `modified_after`) and
    cannot be one; the message names the argument, then `problem` (the command line names
    its own flag for it: `--since` for `modified_after`)."""

    def __init__(self, argument: str, problem: str, *, hint: str | None = None) -> None:
        super().__init__(f"{argument} {problem}", hint=hint)
        self.argument = argument
        self.problem = problem


_ARGUMENT_HINTS = {
    "path": "pass a repo-relative folder, such as docs/api",
    "ext": "pass one extension, such as md or .mdx",
    "modified_after": "pass a lookback such as 7d or 12h, or a date such as 2026-01-31",
    "tag": "pass one tag, such as auth",
}


def argument_chars(name: str) -> int:
    """The most characters the convenience `name` takes (`path`: a path's, 4,096)."""
    if name == "path":
        from kenso_git.repo.scope import MAX_PATH_CHARS  # not at the top: the CLI's search

        return MAX_PATH_CHARS
    return 256 if name == "tag" else 32


def check_at_revision(request: SearchRequest) -> None:
    """Refuse a time filter at another revision: `modified:` judges the work tree's file
    times, which the docs of a commit do not have (a page that differs there carried 0 and
    failed the filter, the others today's time: the answer was silently partial).

    Raises:
        UsageError: the query or `modified_after` filters by time.
        QuerySyntaxError: the query does not parse.
    """
    if request.modified_after or request.parsed().of("modified"):
        raise UsageError(
            "modified: (--since, modified_after) judges the files' times in the work tree, "
            "which the docs at another revision (--ref, ref) do not have",
            hint="drop the time filter at a revision, or search the work tree without --ref "
            "(`changed --since REV` lists what changed since one)",
        )


def _argument_filter(name: str, value: str, text: str, now: float | None) -> Query:
    """The one filter `text` (the filter of argument `name`, given `value`) reads as.

    Raises:
        ArgumentValueError: `value` is over the argument's limit, holds a NUL byte, or does
            not read as one filter (a space in it, or a value the filter refuses).
    """
    hint, limit = _ARGUMENT_HINTS[name], argument_chars(name)
    shown = value if len(value) <= 80 else value[:80] + "..."
    if len(value) > limit:
        raise ArgumentValueError(
            name, f"is longer than {limit:,} characters ({len(value):,})", hint=hint
        )
    if "\x00" in value:  # FTS5 would read a NUL as the end of the query (#27)
        raise ArgumentValueError(name, "contains a NUL byte", hint="remove the NUL byte")
    try:
        query = parse(text, now=now, caps=(len(text), MAX_TOKENS))
    except QuerySyntaxError as err:
        raise ArgumentValueError(
            name, f"{shown!r} cannot be read: {err.reason}", hint=err.hint or hint
        ) from None
    if query.terms or len(query.filters) != 1:
        raise ArgumentValueError(name, f"{shown!r} is not one value", hint=hint)
    return query


def search(
    conn: sqlite3.Connection,
    request: SearchRequest,
    *,
    path_filter: PathFilter | None = None,
    now: float | None = None,
    synonyms: Synonyms | None = None,
    texts: docfilter.Texts | None = None,
) -> AgentPage:
    """One page of `request` (`synonyms`: the ranking's synonym groups; `texts`: where
    `re:` reads the candidates' text, by default the indexed text).

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
    query = request.parsed(now)
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
    terms = query.positive_terms()
    if not any(f.name == "re" for f in query.filters):
        texts = None  # nothing reads text: the rankings are those of the index alone
    if exhaustive:
        ranking = _ranking(conn, query, path_filter, generation, texts, ranked=False)
        after = pagination.read_keyset(request.cursor, check)
        start = 0 if after is None else bisect.bisect_right(ranking.paths, after)
        chosen = _scored(conn, terms, ranking.candidates[start : start + page_size])
        page = pagination.make_page(
            _hits(conn, chosen, terms),
            mode=request.mode,
            page_size=page_size,
            # every match, those before the cursor too: the list is never cut short
            total=len(ranking.candidates),
            lower_bound=not ranking.complete,
            more_after=len(ranking.candidates) - start > page_size,
            cursor_for=lambda n: pagination.keyset_cursor(chosen[n - 1].doc.path, check),
            as_of=as_of,
        )
    else:
        page = _ranked_page(conn, query, request.cursor, page_size, check, generation, as_of,
                            path_filter, synonyms, texts)  # fmt: skip
    if query.read_as_words:
        page["read_as_words"] = list(query.read_as_words)
    return page


def _ranked_page(
    conn: sqlite3.Connection,
    query: Query,
    cursor: str | None,
    page_size: int,
    check: str,
    generation: tuple[str, str] | None,
    as_of: int | None,
    path_filter: PathFilter | None,
    synonyms: Synonyms | None,
    texts: docfilter.Texts | None,
) -> AgentPage:
    """A ranked page: the ranking as deep as the page needs (see `search.pipeline`)."""
    offset = pagination.read_offset(cursor, check, generation, limit=pagination.OFFSET_CAP)
    if any(t.text.strip() for t in query.positive_terms()):
        chain = _chain(conn, query, path_filter, generation, synonyms, texts)
        with chain.lock:
            chain.extend(conn, offset + page_size)
            if not chain.known_beyond(offset + page_size):  # is there a next page? rank deeper
                chain.extend(conn, offset + page_size + 1)
            beyond = chain.known_beyond(offset + page_size)
            ranking = _Ranking(list(chain.candidates), [], chain.complete, chain.corrected)
    else:
        ranking = _ranking(conn, query, path_filter, generation, texts, ranked=True)
        beyond = len(ranking.candidates) > offset + page_size
    ranked = ranking.candidates
    capped = ranked[: pagination.OFFSET_CAP]
    chosen = capped[offset : offset + page_size]
    page = pagination.make_page(
        _hits(conn, chosen, query.positive_terms()),
        mode="ranked",
        page_size=page_size,
        total=len(capped),
        lower_bound=len(ranked) > len(capped) or not ranking.complete,
        more_after=beyond,
        cursor_for=lambda n: (
            pagination.offset_cursor(offset + n, check, generation)
            if offset + n < pagination.OFFSET_CAP
            else None
        ),
        as_of=as_of,
    )
    if ranking.corrected is not None:
        page["corrected_query"] = ranking.corrected
    return page


@dataclass(frozen=True, slots=True)
class _Ranking:
    candidates: list[Candidate]  # ranked, or path-sorted (exhaustive)
    paths: list[str]  # exhaustive: the candidates' paths, for the keyset's bisect
    complete: bool = True  # ranked: the ranking holds every match (not cut at its depth)
    corrected: str | None = None  # ranked: the typo correction the ranking used


# Every page of a query re-scored every matching chunk: the list is computed once per
# (index generation, query, mode, scope) and later pages slice it.
_RANKINGS: LRU[_Ranking] = LRU(
    RANKING_CACHE_SIZE, RANKING_CACHE_CANDIDATES, lambda r: len(r.candidates)
)


def _ranking(
    conn: sqlite3.Connection,
    query: Query,
    path_filter: PathFilter | None,
    generation: tuple[str, str] | None,
    texts: docfilter.Texts | None,
    *,
    ranked: bool,
) -> _Ranking:
    """The exhaustive path list, or (`ranked`) the documents a query of filters alone lists,
    newest first."""

    def make() -> _Ranking:
        allowed = _scoped(conn, path_filter, generation)
        found = _kept(conn, query, allowed, _match(conn, query.positive_terms(), allowed), texts)
        if not ranked:
            found.sort(key=_path)
            return _Ranking(found, [c.doc.path for c in found])
        found.sort(key=_newest)
        return _Ranking(found, [])

    if generation is None or not _lasting(path_filter, texts):
        return make()
    return _RANKINGS.get_or_make((generation, query, ranked, path_filter, texts), make)


# The ranked lists of the queries asked lately, each extended as its deeper pages are asked.
_CHAINS: LRU[pipeline.Ranking] = LRU(RANKING_CACHE_SIZE)


def _chain(
    conn: sqlite3.Connection,
    query: Query,
    path_filter: PathFilter | None,
    generation: tuple[str, str] | None,
    synonyms: Synonyms | None,
    texts: docfilter.Texts | None,
) -> pipeline.Ranking:
    def make() -> pipeline.Ranking:
        return pipeline.Ranking(query, _scoped(conn, path_filter, generation), synonyms, texts)

    if generation is None or not _lasting(path_filter, texts):
        return make()
    return _CHAINS.get_or_make((generation, query, path_filter, synonyms, texts), make)


def _lasting(path_filter: PathFilter | None, texts: docfilter.Texts | None = None) -> bool:
    """Whether a filter can be met again: none, or a bound method such as `Scope.allows`
    (equal, and hashing equal, across calls). A per-call gate (`Scope.gate()`, a new
    closure each time) never can: caching under it only held memory, one entry per call
    (#27: 40 hostile calls a burst kept 32 rankings of up to 200,000 candidates). Nor can
    texts read from the work tree (no `key`): a file may change under the same index."""
    if texts is not None and texts.key is None:
        return False
    return path_filter is None or getattr(path_filter, "__self__", None) is not None


_SCOPED: LRU[GatedDocs] = LRU(8)


def _scoped(
    conn: sqlite3.Connection, path_filter: PathFilter | None, generation: tuple[str, str] | None
) -> GatedDocs:
    """path -> `Doc` of the documents the gate lets through, each judged when first looked
    up (`search/lang/gated.py`): a ranked page asks about what it may show, not every doc."""
    docs = docmeta.load(conn)
    if path_filter is None or generation is None or not _lasting(path_filter):
        return GatedDocs(docs, path_filter)
    return _SCOPED.get_or_make((generation, path_filter), lambda: GatedDocs(docs, path_filter))


def _path(c: Candidate) -> str:
    return c.doc.path


def _newest(c: Candidate) -> tuple[int, str]:
    return (-c.doc.modified, c.doc.path)


def _scored(
    conn: sqlite3.Connection, terms: tuple[Term, ...], chosen: list[Candidate]
) -> list[Candidate]:
    """The exhaustive page's candidates with their scores and best chunks. bm25 over every
    match of a common word costs more than a page may (~50 ms for 7,000 chunks): only the
    page's documents are ranked, each time a page is asked for."""
    expression = fts_expression(terms)
    if expression is None or not chosen:
        return chosen
    content = docmatch.content_hits(conn, terms, [c.doc.path for c in chosen])
    out = []
    for c in chosen:
        hit = content.get(c.doc.path)
        out.append(c if hit is None else Candidate(c.doc, hit[0], c.match_type, hit[1], hit[2]))
    return out


def _match(
    conn: sqlite3.Connection, terms: tuple[Term, ...], allowed: GatedDocs
) -> list[Candidate]:
    """Exhaustive mode's documents: those holding every term, unscored (`_scored` scores a
    page), in path order; with no term, every indexed document. The gate is not asked yet
    (`_kept` asks it)."""
    expression = fts_expression(terms)
    if expression is None:
        return [Candidate(d, 0.0, "Filter", None, None) for d in allowed.unjudged()]
    docs = (allowed.indexed(p) for p in sorted(docmatch.content_paths(conn, terms)))
    return [Candidate(d, 0.0, "Content", None, None) for d in docs if d is not None]


def _kept(
    conn: sqlite3.Connection,
    query: Query,
    allowed: GatedDocs,
    found: list[Candidate],
    texts: docfilter.Texts | None,
) -> list[Candidate]:
    """The matches the scope gate and every filter let through, holding no negated term.
    The gate looks each path up on disk (`Scope.gate`): it judges only what the filters of
    the index's metadata and the negations kept, in their order (path order: its lookups
    then open each folder once, `safeopen.Walker`); `re:` reads the files it let through."""
    cheap = tuple(f for f in query.filters if f.name != "re")
    found = docfilter.apply_filters(conn, cheap, found)
    found = docfilter.drop_negated(conn, [t for t in query.terms if t.negated], found)
    found = [c for c in found if allowed.shown(c.doc.path) is not None]
    regex = tuple(f for f in query.filters if f.name == "re")
    return docfilter.apply_filters(conn, regex, found, texts)


def _hits(
    conn: sqlite3.Connection, chosen: list[Candidate], terms: tuple[Term, ...]
) -> list[AgentHit]:
    ids = [c.chunk_id if c.chunk_id is not None else c.doc.first_chunk for c in chosen]
    chunks = chunkreads.sections(conn, ids)
    needles = [t.text.casefold() for t in terms]
    bare = [c.doc.path for c, i in zip(chosen, ids, strict=True) if not chunks.get(i, ("",))[0]]
    described = _descriptions(conn, bare) if bare else {}
    out: list[AgentHit] = []
    for candidate, chunk_id in zip(chosen, ids, strict=True):
        content, section = chunks.get(chunk_id, ("", ""))
        content = content or described.get(candidate.doc.path, "")
        snippet, cut = pagination.cut_snippet(content, _first_match(content, needles))
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
        if candidate.tier is not None:
            out[-1]["tier"] = candidate.tier
    return out


def _descriptions(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """The frontmatter description of each of `paths` that has one: the snippet of a page
    whose matched chunk holds no text (a section page of frontmatter alone, as static
    sites' `_index.md` often are), where an empty snippet told an agent nothing."""
    rows = chunkreads.labels(conn, paths)
    found = ((path, rankdocs.description(labels)) for path, labels in rows)
    return {path: text for path, text in found if text}


def _first_match(content: str, needles: list[str]) -> int:
    """Where in `content` the first of the casefolded `needles` starts (0: none does).
    casefold() lengthens some letters (ß -> ss, İ -> i̇, ﬁ -> fi): an offset in the folded
    text is mapped back to the character it was folded from, else the snippet drifts right
    by one character per such letter before the match."""
    folded = content.casefold()
    found = [i for i in (folded.find(n) for n in needles) if i >= 0]
    if not found:
        return 0
    at = min(found)
    if len(folded) == len(content):
        return at  # every character folded to one
    # casefold() works character by character: the folded text is the characters' folds
    ends = list(itertools.accumulate(len(c.casefold()) for c in content))
    return bisect.bisect_right(ends, at)


def clear_cache() -> None:
    """Forget every cached ranking (benchmarks measure the first page of a query cold)."""
    _RANKINGS.clear()
    _CHAINS.clear()
    _SCOPED.clear()
