"""The ranked mode of the query language: `search_docs`'s ranking, then filters, then pages.

One query pipeline (#28): the `search` tool parses its query once (`querylang`), hands the
words to the same ranking `search_docs` uses (`cascade.rank`: the AND, NEAR and OR stages
with their fallbacks, the document signals, typo correction, synonyms, CJK, vectors), and
keeps the documents every filter, phrase and negation lets through. The cheap checks (the
scope gate, `in:`, `ext:`, `tag:`, `category:`, `modified:`, `size:`, phrases, negated words)
run inside the ranking's SQL, so its top documents are all ones the page may show; `re:`
filters read text and run over the ranked documents afterwards, asking the ranking for more
when they leave too few. A question asked in words so gets the answer `search_docs` would
give, filtered and paged, and `match_type` with `tier` says how each document matched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kenso_git.records import NamedTuple
from kenso_git.search import cascade
from kenso_git.search import docfilter
from kenso_git.search.docmatch import content_paths
from kenso_git.search.docmatch import fts_expression
from kenso_git.search.docmeta import Doc
from kenso_git.search.querylang import Filter
from kenso_git.search.querylang import Query
from kenso_git.search.querylang import Term
from kenso_git.search.synonyms import Synonyms

# How deep a ranked query is ranked: the smallest of these that holds the page asked for and
# one more hit (to know whether more exist); a later page of the same query reuses it.
DEPTHS = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)
PATH_TIER = "path"  # a document found by the file-path fallback of the ranking
FILENAME_TIER = "filename"  # by the words of its path alone


class Candidate(NamedTuple):
    """A document of a page: its score, how it matched and the chunk shown for it."""

    doc: Doc
    score: float
    match_type: str  # Content, FileName, Both, Filter
    chunk_id: int | None  # the best chunk (None: the document's first)
    section: str | None
    tier: str | None = None  # AND, NEAR, OR, path, filename (None: a filter-only listing)


class Ranked(NamedTuple):
    """Ranked candidates, whether the ranking holds every match, and the typo correction."""

    candidates: list[Candidate]
    complete: bool
    corrected: str | None


def depth_for(wanted: int) -> int:
    """The ranking depth that holds `wanted` hits."""
    return next((d for d in DEPTHS if d >= wanted), DEPTHS[-1])


def ranked(
    conn: sqlite3.Connection,
    query: Query,
    allowed: dict[str, Doc],
    *,
    depth: int,
    synonyms: Synonyms | None,
) -> Ranked:
    """The documents of `allowed` matching `query`, in `search_docs`'s order (see the
    module docstring), ranked `depth` deep; FileName matches follow the ranked ones."""
    terms = query.positive_terms()
    admits = _admission(conn, query, allowed)
    text = " ".join(t.text for t in terms)
    rows, corrected = _rank(conn, query, text, depth, synonyms, admits)
    words = [t.text.casefold() for t in terms if not t.phrase]
    whole_path = bool(words) and len(words) == len(terms)
    out: list[Candidate] = []
    for row in rows:
        doc = allowed[row.file_path]
        both = whole_path and all(w in doc.folded_path for w in words)
        tier = PATH_TIER if row.stage is None else row.stage.label
        out.append(
            Candidate(doc, row.score, "Both" if both else "Content", row.chunk_id,
                      row.section_path or None, tier)
        )  # fmt: skip
    complete = len(rows) < depth
    if whole_path:
        listed = {c.doc.path for c in out}
        named = [
            d
            for d in allowed.values()
            if d.path not in listed and all(w in d.folded_path for w in words) and admits(d.path)
        ]
        named.sort(key=lambda d: d.path)
        out += [Candidate(d, cascade.PATH_FALLBACK_SCORE, "FileName", None, None, FILENAME_TIER)
                for d in named]  # fmt: skip
    return Ranked(_regex_filtered(conn, query.filters, out), complete, corrected)


def _rank(
    conn: sqlite3.Connection,
    query: Query,
    text: str,
    depth: int,
    synonyms: Synonyms | None,
    admits: Callable[[str], bool],
) -> tuple[tuple[cascade.Row, ...], str | None]:
    if not any(t.text.strip() for t in query.positive_terms()):
        return (), None
    found = cascade.rank(conn, text, limit=depth, synonyms=synonyms, path_filter=admits)
    return found.rows, found.corrected


def _regex_filtered(
    conn: sqlite3.Connection, filters: tuple[Filter, ...], candidates: list[Candidate]
) -> list[Candidate]:
    """`re:` filters (which read each document's text) over the ranked documents only."""
    patterns = tuple(f for f in filters if f.name == "re")
    return docfilter.apply_filters(conn, patterns, candidates) if patterns else candidates


def _admission(
    conn: sqlite3.Connection, query: Query, allowed: dict[str, Doc]
) -> Callable[[str], bool]:
    """Whether a path may be ranked: in `allowed` (the scope gate), passing every filter but
    `re:`, holding every phrase and no negated word or phrase; decided once per path."""
    cheap = tuple(f for f in query.filters if f.name != "re")
    needed = [_holding(conn, t) for t in query.positive_terms() if t.phrase]
    barred = [_holding(conn, t) for t in query.terms if t.negated]
    verdicts: dict[str, bool] = {}

    def admits(path: str) -> bool:
        verdict = verdicts.get(path)
        if verdict is None:
            doc = allowed.get(path)
            verdict = (
                doc is not None
                and all((path in docfilter.passing(conn, f, [doc])) != f.negated for f in cheap)
                and all(path in held for held in needed)
                and not any(path in held for held in barred)
            )
            verdicts[path] = verdict
        return verdict

    return admits


def _holding(conn: sqlite3.Connection, term: Term) -> set[str]:
    """The paths of the documents holding a word or phrase (unscored)."""
    expression = fts_expression([Term(term.text, term.phrase)])
    return set() if expression is None else content_paths(conn, expression)
