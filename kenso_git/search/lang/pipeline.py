"""The ranked mode of the query language: `search_docs`'s ranking, then filters, then pages.

One query pipeline (#28): the `search` tool parses its query once (`querylang`), hands the
words to the same ranking `search_docs` uses (`cascade.rank`: the AND, NEAR and OR stages
with their fallbacks, the document signals, typo correction, synonyms, CJK, vectors), and
keeps the documents every filter, phrase and negation lets through. The cheap checks (the
scope gate, `in:`, `ext:`, `tag:`, `category:`, `modified:`, `size:`, phrases, negated words)
judge the ranking's matches in rank order, only until each stage has its rows (the gate
asks about those documents alone: `gated.GatedDocs`), so its top documents are all ones the
page may show; `re:` filters read text (each document's file, as `regex_search` greps it:
`docfilter.Texts`) and run over the ranked documents afterwards, asking the ranking for
more when they leave too few. A question asked in words so gets the answer `search_docs`
would give, filtered and paged, and `match_type` with `tier` says how each document matched.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

from kenso_git.records import NamedTuple
from kenso_git.search.docmeta import Doc
from kenso_git.search.lang import docfilter
from kenso_git.search.lang.docmatch import content_paths
from kenso_git.search.lang.gated import GatedDocs
from kenso_git.search.lang.querylang import Filter
from kenso_git.search.lang.querylang import Query
from kenso_git.search.lang.querylang import Term
from kenso_git.search.ranked import cascade
from kenso_git.search.ranked.depth import DEPTHS
from kenso_git.search.ranked.depth import continued
from kenso_git.search.ranked.synonyms import Synonyms

# The ranking is `search_docs`'s at 10 documents (the agent's default page, so that page is
# exactly what search_docs answers), continued by its rankings at greater depths, each
# adding the documents the ones before did not hold (`depth.DEPTHS`, search_docs's list
# past 10): a page deeper in the list never shows a document again or skips one, and is
# ranked only when asked for (`Ranking.extend`).

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


class Ranking:
    """One query's ranked candidates, extended as deeper pages are asked for (`extend`).

    Not thread-safe: the caller holds `lock` while it extends or reads it (the agent's
    cache shares one per query and index generation between calls).
    """

    def __init__(
        self,
        query: Query,
        allowed: GatedDocs,
        synonyms: Synonyms | None,
        texts: docfilter.Texts | None = None,
    ) -> None:
        self.lock = threading.Lock()
        self.candidates: list[Candidate] = []
        self.complete = False  # every match is ranked: nothing deeper to ask for
        self.beyond = False  # the last ranking found a document past its depth, not yet seen
        self.corrected: str | None = None  # the typo correction the ranking used
        self._query, self._allowed, self._synonyms = query, allowed, synonyms
        self._texts = texts  # what `re:` reads
        terms = query.positive_terms()
        self._text = " ".join(t.text for t in terms)
        self._words = [t.text.casefold() for t in terms if not t.phrase]
        self._whole_path = bool(self._words) and len(self._words) == len(terms)
        self._seen: set[str] = set()
        self._next = 0  # the index in DEPTHS of the next ranking to ask for
        self._last: float | None = None  # the score of the last document ranked
        self._admits: Callable[[str], bool] | None = None

    def extend(self, conn: sqlite3.Connection, wanted: int) -> None:
        """Rank until `wanted` candidates are known or every match is."""
        if self._admits is None:
            self._admits = _admission(conn, self._query, self._allowed)
            if not self._text.strip():
                self._finish(conn)
        while not self.complete and len(self.candidates) < wanted:
            limit = DEPTHS[self._next]
            found = cascade.rank(
                conn, self._text, limit=limit, synonyms=self._synonyms, path_filter=self._admits
            )
            self.corrected = self.corrected or found.corrected
            fresh = continued(self._last, [r for r in found.rows if r.file_path not in self._seen])
            self._last = fresh[-1].score if fresh else self._last
            self._seen.update(r.file_path for r in fresh)
            self.beyond = any(path not in self._seen for path in found.beyond)
            self.candidates += _regex_filtered(
                conn, self._query.filters, self._content(fresh), self._texts
            )
            self._next += 1
            if len(found.rows) < limit or self._next == len(DEPTHS):
                self._finish(conn)

    def known_beyond(self, count: int) -> bool:
        """Whether a candidate after the first `count` is known to exist without ranking
        deeper: one is ranked already, or the last ranking found a document past its depth
        that no ranking before held, and nothing can drop it (`re:` filters judge a document
        only once it is ranked)."""
        if len(self.candidates) > count:
            return True
        unfiltered = not any(f.name == "re" for f in self._query.filters)
        return len(self.candidates) == count and not self.complete and self.beyond and unfiltered

    def _content(self, rows: list[cascade.Row]) -> list[Candidate]:
        out = []
        for row in rows:
            doc = self._allowed[row.file_path]
            both = self._whole_path and all(w in doc.folded_path for w in self._words)
            tier = PATH_TIER if row.stage is None else row.stage.label
            out.append(
                Candidate(doc, row.score, "Both" if both else "Content", row.chunk_id,
                          row.section_path or None, tier)
            )  # fmt: skip
        return out

    def _finish(self, conn: sqlite3.Connection) -> None:
        """Every match is ranked: the documents whose path alone holds every word follow."""
        self.complete = True
        if not self._whole_path or self._admits is None:
            return
        admits, words = self._admits, self._words
        named = sorted(
            (
                d
                for d in self._allowed.unjudged()  # the gate judges those `admits` is asked
                if d.path not in self._seen
                and all(w in d.folded_path for w in words)
                and admits(d.path)
            ),
            key=lambda d: d.path,
        )
        self._seen.update(d.path for d in named)
        filename = [Candidate(d, cascade.PATH_FALLBACK_SCORE, "FileName", None, None,
                              FILENAME_TIER) for d in named]  # fmt: skip
        self.candidates += _regex_filtered(conn, self._query.filters, filename, self._texts)


def _regex_filtered(
    conn: sqlite3.Connection,
    filters: tuple[Filter, ...],
    candidates: list[Candidate],
    texts: docfilter.Texts | None,
) -> list[Candidate]:
    """`re:` filters (which read each document's text) over the ranked documents only."""
    patterns = tuple(f for f in filters if f.name == "re")
    if not patterns or not candidates:
        return candidates
    return docfilter.apply_filters(conn, patterns, candidates, texts)


def _admission(conn: sqlite3.Connection, query: Query, allowed: GatedDocs) -> Callable[[str], bool]:
    """Whether a path may be ranked: in `allowed` (the scope gate), passing every filter but
    `re:`, holding every phrase and no negated word or phrase; decided once per path. The
    gate looks the path up on disk (`Scope.gate`): it is asked last, about what the checks
    of the index alone let through."""
    cheap = tuple(f for f in query.filters if f.name != "re")
    needed = [_holding(conn, t) for t in query.positive_terms() if t.phrase]
    barred = [_holding(conn, t) for t in query.terms if t.negated]
    verdicts: dict[str, bool] = {}

    def admits(path: str) -> bool:
        verdict = verdicts.get(path)
        if verdict is None:
            doc = allowed.indexed(path)
            verdict = (
                doc is not None
                and all((path in docfilter.passing(conn, f, [doc])) != f.negated for f in cheap)
                and all(path in held for held in needed)
                and not any(path in held for held in barred)
                and allowed.shown(path) is not None
            )
            verdicts[path] = verdict
        return verdict

    return admits


def _holding(conn: sqlite3.Connection, term: Term) -> set[str]:
    """The paths of the documents holding a word or phrase (unscored)."""
    return content_paths(conn, [Term(term.text, term.phrase)])
