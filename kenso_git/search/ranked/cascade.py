"""Keyword search over the index: cascade, fallbacks, dedup, re-rank and relevance (spec §4).

Differences from kenso 2.0.0 (spec §8):
* the cascade runs until its hits span 10 documents (signal `fill`, #31; `min(3, limit)`
  without it), and a stage that falls short keeps its hits, which rank
  with the next stage's at twice their score (§8.10);
* each stage fetches `6 x limit` chunks (kenso: 3x), so one long document cannot crowd the
  others out before deduplication; with `fill`, `limit` is at least 10 there, so a search
  for 5 answers the first five of a search for 10, and one for 20 the first ten
  (search/ranked/depth.py);
* the file-path fallback escapes `%` and `_` (§8.16);
* the fuzzy dictionary is a set bucketed by length, never corrects stop words, keeps the
  case of the other words, and is cached per database file and `generation`, so ingests by
  other processes are seen (§8.23, §8.25);
* highlights never show the internal `Keywords:`/`Source:`/... lines (§8.18).
"""

from __future__ import annotations

import sqlite3

from kenso_git.records import NamedTuple
from kenso_git.search.ranked import anchors
from kenso_git.search.ranked import cjk
from kenso_git.search.ranked import parallel
from kenso_git.search.ranked import vectors
from kenso_git.search.ranked.abbrev import Spelled
from kenso_git.search.ranked.abbrev import collapse
from kenso_git.search.ranked.abbrev import spelled_out
from kenso_git.search.ranked.categories import category_filter
from kenso_git.search.ranked.depth import listed
from kenso_git.search.ranked.depth import ranked_depth
from kenso_git.search.ranked.fuzzy import correct
from kenso_git.search.ranked.hits import INLINE_LINK
from kenso_git.search.ranked.hits import Hit
from kenso_git.search.ranked.hits import PathFilter
from kenso_git.search.ranked.hits import finish
from kenso_git.search.ranked.query import AND
from kenso_git.search.ranked.query import Stage
from kenso_git.search.ranked.query import bounded
from kenso_git.search.ranked.query import build_stages
from kenso_git.search.ranked.query import check_query
from kenso_git.search.ranked.rank import Evidence
from kenso_git.search.ranked.rank import boosts
from kenso_git.search.ranked.rank import cascade_threshold
from kenso_git.search.ranked.rank import compressed
from kenso_git.search.ranked.rank import enabled_signals
from kenso_git.search.ranked.rankdocs import LinkTarget
from kenso_git.search.ranked.rankdocs import heading_links
from kenso_git.search.ranked.rankdocs import link_targets
from kenso_git.search.ranked.rankdocs import words
from kenso_git.search.ranked.synonyms import Synonyms
from kenso_git.store import budget
from kenso_git.store import chunkreads
from kenso_git.store import edges
from kenso_git.text.charrefs import resolved

FETCH_FACTOR = 6
SHORT_STAGE_WEIGHT = 2.0  # tuned on the tuning half (docs/ranking.md); 1 = kenso's order
PATH_FALLBACK_SCORE = 0.5
RELATION_BOOST = 0.15
LINK_KEEP = 0.5  # signal `linked`: a hub keeps half of a linked heading's evidence
LIFT_MARGIN = 1.0001  # signal `parallel`: a lifted page scores just above the page it passes
_LIFTS = frozenset({"parallel", "near"})  # the signals that move a page above another


class SearchResult(NamedTuple):
    query: str
    hits: tuple[Hit, ...]
    corrected_query: str | None
    searched_words: int = 0  # over the word cap: how many of its words were searched, else 0


class Row(NamedTuple):
    """One ranked chunk: a document's best, once deduplicated."""

    chunk_id: int
    file_path: str
    title: str
    section_path: str
    category: str
    tags: str | None
    score: float
    stage: Stage | cjk.TrigramStage | None
    tier: int  # index of the cascade stage that found it; earlier tiers rank first


class _Filters(NamedTuple):
    category: str | None
    path_filter: PathFilter | None

    def sql(self, alias: str = "c", *, gated: bool = True) -> tuple[str, list[object]]:
        """The filters' SQL; with `gated` False, without the path filter (the caller asks
        it of the rows itself)."""
        has_path_filter = gated and self.path_filter is not None
        return chunkreads.chunk_filter(self.category, has_path_filter, alias)


class Ranked(NamedTuple):
    """The ranking of a query: each document's best chunk, best first, the typo correction
    it was found under (None: the query as asked), and the documents it found past `limit`
    (`beyond`, their paths: a deeper ranking holds them too)."""

    rows: tuple[Row, ...]
    corrected: str | None
    beyond: tuple[str, ...] = ()


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    category: str | None = None,
    limit: int = 5,
    synonyms: Synonyms | None = None,
    path_filter: PathFilter | None = None,
) -> SearchResult:
    """Run the whole pipeline of spec §4.1 for `query`: `rank`, then each hit's preview,
    highlight, tags and related count.

    Raises:
        QueryError: the query is over the character cap, or holds a NUL byte (one over
            the word cap is searched by its first distinct content words: `bounded`).
    """

    def rank_at(depth: int) -> Ranked:
        return rank(
            conn, query, category=category, limit=depth, synonyms=synonyms, path_filter=path_filter
        )

    ranked = listed(rank_at, max(1, int(limit)), enabled_signals())
    searched = bounded(query)
    cut = len(searched.split()) if searched != query else 0
    if not ranked.rows:
        return SearchResult(query, (), None, cut)
    text = ranked.corrected or asked(searched, enabled_signals()).strip()
    hits = finish(conn, list(ranked.rows), text, path_filter)
    return SearchResult(query, hits, ranked.corrected, cut)


def rank(
    conn: sqlite3.Connection,
    query: str,
    *,
    category: str | None = None,
    limit: int = 5,
    synonyms: Synonyms | None = None,
    path_filter: PathFilter | None = None,
) -> Ranked:
    """The best `limit` documents for `query` (spec §4.1 up to the hits): the cascade, its
    fallbacks (CJK, file path, typo correction), the document signals, the relation boost
    and the vector blend; `path_filter` decides which paths may match: inside the SQL, but
    for each stage's matches, which it judges in rank order until the stage has its rows.

    Raises:
        QueryError: the query is over the character cap, or holds a NUL byte (one over
            the word cap is searched by its first distinct content words: `bounded`).
    """
    check_query(query)
    signals = enabled_signals()
    text = asked(bounded(query), signals).strip()
    if not text:
        return Ranked((), None)
    limit = max(1, int(limit))
    fetch = ranked_depth(limit, signals) * FETCH_FACTOR
    filters = _Filters(category_filter(category), path_filter)
    if path_filter is not None:
        chunkreads.install_path_filter(conn, path_filter)
    enough = cascade_threshold(limit, signals)
    rows = _cjk_rows(conn, text, filters, fetch, enough, synonyms)
    if not rows:
        rows = _cascade(conn, text, filters, fetch, enough, synonyms)
    corrected = None
    if not rows and ("/" in text or "." in text):
        rows = _path_fallback(conn, text, filters, fetch)
    if not rows and any(len(w) >= 3 for w in text.split()):
        corrected = correct(conn, text, path_filter)
        if corrected is not None:
            rows = _cascade(conn, corrected, filters, fetch, enough, synonyms)
            if not rows:
                corrected = None
    if not rows:
        return Ranked((), None)
    text = corrected or text
    ranked = _blend(conn, text, _rerank(conn, _document_rank(conn, text, rows, filters)))
    return Ranked(tuple(ranked[:limit]), corrected, tuple(r.file_path for r in ranked[limit:]))


def asked(query: str, signals: frozenset[str]) -> str:
    """The question as the cascade and the signals read it: with signal `charrefs`, its
    character references resolved (`&lt;add&gt;` is `<add>`: `text.charrefs`)."""
    return resolved(query) if "charrefs" in signals else query


def _stage_rows(
    conn: sqlite3.Connection, stage: Stage, tier: int, filters: _Filters, fetch: int
) -> list[Row]:
    # the scope gate judges the matches in rank order, only as many as the page needs
    where, params = filters.sql(gated=False)
    try:
        cur = chunkreads.ranked_matches(
            conn, stage.expression, where, params, fetch, filters.path_filter
        )
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc).lower():  # an expression FTS5 refuses matches nothing
            return []
        raise
    return [
        Row(r[0], r[1], r[2] or "", r[3] or "", r[4] or "", r[5], -r[6], stage, tier) for r in cur
    ]


def _cascade(
    conn: sqlite3.Connection,
    text: str,
    filters: _Filters,
    fetch: int,
    threshold: int,
    synonyms: Synonyms | None,
) -> list[Row]:
    """AND -> NEAR -> OR, each stage adding its new hits to the earlier stages' hits.

    The cascade stops once the hits span `threshold` documents (several chunks of one
    document do not make a stage "enough"); see `_soften` for how the hits of a stage
    that fell short rank.
    """
    merged: list[Row] = []
    seen: set[int] = set()
    files: set[str] = set()
    for tier, stage in enumerate(build_stages(text, synonyms)):
        budget.check()  # a call past its time budget stops between stages too
        for row in _stage_rows(conn, stage, tier, filters, fetch):
            if row.chunk_id not in seen:
                seen.add(row.chunk_id)
                files.add(row.file_path)
                merged.append(row)
        if len(files) >= threshold:
            break
    return _soften(merged)


def _soften(rows: list[Row]) -> list[Row]:
    """The hits of the stages that fell short join the last stage's tier at
    `SHORT_STAGE_WEIGHT` times their score.

    A complete match is evidence, not proof: a question's words may all occur in a page by
    chance (a paraphrase on docs-desktop: 0.832 against kenso's 0.846 while those pages were
    pinned ahead, docs/ranking.md). kenso drops them; pinning them first overrates them.
    """
    last = max((r.tier for r in rows), default=0)
    return [
        r if r.tier == last else r._replace(tier=last, score=r.score * SHORT_STAGE_WEIGHT)
        for r in rows
    ]


def _cjk_rows(
    conn: sqlite3.Connection,
    text: str,
    filters: _Filters,
    fetch: int,
    threshold: int,
    synonyms: Synonyms | None,
) -> list[Row]:
    """A query holding CJK text answered from the trigram side index (search.cjk, #18).

    `unicode61` keeps a CJK run as one token, so the main index finds such a query only
    as a whole run. Its AND hits (every word a whole token: the most precise evidence)
    still rank first, then the side index's; when neither finds anything the main cascade
    runs as for any query.
    """
    if not cjk.wanted(conn, text):
        return []
    exact = [
        row
        for stage in build_stages(text, synonyms)
        if stage.label == AND
        for row in _stage_rows(conn, stage, 0, filters, fetch)
    ]
    seen = {row.chunk_id for row in exact}
    where, params = filters.sql()
    side = cjk.rows(conn, text, where, params, fetch, threshold)
    return exact + [Row(*r[:6], r[6], r[8], r[7] + 1) for r in side if r[0] not in seen]


def _path_fallback(conn: sqlite3.Connection, text: str, filters: _Filters, fetch: int) -> list[Row]:
    where, params = filters.sql()
    cur = chunkreads.path_matches(conn, f"%{chunkreads.escape_like(text)}%", where, params, fetch)
    return [
        Row(r[0], r[1], r[2] or "", r[3] or "", r[4] or "", r[5], PATH_FALLBACK_SCORE, None, 0)
        for r in cur
    ]


def _order(row: Row) -> tuple[int, float]:
    return (row.tier, -row.score)


def _dedupe(rows: list[Row]) -> list[Row]:
    """Best row per file (earlier stage first, then higher score), in rank order."""
    best: dict[str, Row] = {}
    for row in rows:
        kept = best.get(row.file_path)
        if kept is None or _order(row) < _order(kept):
            best[row.file_path] = row
    return sorted(best.values(), key=_order)


def _document_rank(
    conn: sqlite3.Connection, text: str, rows: list[Row], filters: _Filters
) -> list[Row]:
    """Each file's best row, scored by the document-level signals of `rank` (#18)."""
    signals = enabled_signals()
    if "linked" in signals:
        rows = _hand_over(conn, rows, filters)
    if "anchors" in signals:
        rows = _anchor(conn, text, rows, filters, signals)
    best = _dedupe(rows)
    if len(best) < 2 or not signals:
        return best
    evidence = [Evidence(r.file_path, r.score, r.tier) for r in rows]
    found = boosts(conn, text, evidence, [r.file_path for r in best], signals)
    top = max(r.score for r in best) if "compress" in signals else 0.0
    boosted = [
        r._replace(score=compressed(r.score, top) * (1 + found.get(r.file_path, 0.0))) for r in best
    ]
    ranked = sorted(boosted, key=_order)
    return _lift(conn, text, ranked, filters, signals) if signals & _LIFTS else ranked


def _lift(
    conn: sqlite3.Connection, text: str, rows: list[Row], filters: _Filters, signals: frozenset[str]
) -> list[Row]:
    """Signals `parallel` and `near` (search.ranked.parallel): each lifted page ranks just
    above the page it was told apart from; a page that did not match the question is shown
    by its first chunk, if the filters keep it."""
    wanted, spelled = _asked(text, signals)
    where, params = filters.sql()
    extra: dict[str, Row] = {}

    def admit(path: str) -> bool:
        for t in link_targets(conn, [path], where, params).values():
            extra[path] = Row(*t, 0.0, None, 0)
        return path in extra

    paths = [r.file_path for r in rows]
    moves = parallel.lifts(conn, wanted, paths, spelled, admit, parallels="parallel" in signals)
    if not moves:
        return rows
    by_path = {r.file_path: r for r in rows}
    for page, above in moves:
        ref = by_path[above]
        row = by_path.get(page) or extra[page]._replace(stage=ref.stage)
        by_path[page] = row._replace(score=ref.score * LIFT_MARGIN, tier=ref.tier)
    return sorted(by_path.values(), key=_order)


def _asked(text: str, signals: frozenset[str]) -> tuple[frozenset[str], tuple[Spelled, ...]]:
    """The question's words, a name it spells out and abbreviates read as one (signal
    `abbrev`), and those names."""
    spelled = spelled_out(text) if "abbrev" in signals else ()
    return collapse(words(text), spelled), spelled


def _hand_over(conn: sqlite3.Connection, rows: list[Row], filters: _Filters) -> list[Row]:
    """Signal `linked` (#31): a chunk under a heading that links to another page is that
    page's evidence too; the hub that lists it keeps `LINK_KEEP` of the chunk's score."""
    where, params = filters.sql()
    links = heading_links(conn, [(r.file_path, r.section_path) for r in rows], where, params)
    gifts: dict[int, Gift] = {}
    for r in rows:
        t = links.get((r.file_path, r.section_path))
        if t is not None:
            gifts[r.chunk_id] = (t, 1.0, LINK_KEEP)
    return _give(rows, gifts)


def _anchor(
    conn: sqlite3.Connection, text: str, rows: list[Row], filters: _Filters, signals: frozenset[str]
) -> list[Row]:
    """Signal `anchors` (search.ranked.anchors): a chunk whose best link line says what the
    question says hands that share of its score to the page the line links to."""
    where, params = filters.sql()
    found, first = anchors.handovers(
        conn,
        _asked(text, signals)[0],
        [(r.chunk_id, r.file_path) for r in rows],
        where,
        params,
        addresses="addresses" in signals,
        paragraphs="paragraphs" in signals,
    )
    keep = 1 - anchors.KEEP
    return _give(rows, {h.chunk_id: (first[h.target], h.share, 1 - keep * h.share) for h in found})


Gift = tuple[LinkTarget, float, float]  # the target's first chunk, its share, what stays


def _give(rows: list[Row], gifts: dict[int, Gift]) -> list[Row]:
    """Each row whose chunk is in `gifts` (target page's first chunk, its share of the
    score, what the row keeps) becomes two: the target's and the row's own, kept part."""
    out = []
    for r in rows:
        gift = gifts.get(r.chunk_id)
        if gift is None:
            out.append(r)
            continue
        (chunk_id, path, title, section, category, tags), share, kept = gift
        given = r._replace(chunk_id=chunk_id, file_path=path, title=title, section_path=section)
        out.append(given._replace(category=category, tags=tags))
        out[-1] = out[-1]._replace(score=r.score * share)
        out.append(r._replace(score=r.score * kept) if kept != 1.0 else r)
    return out


def _rerank(conn: sqlite3.Connection, rows: list[Row]) -> list[Row]:
    """Boost results linked to other results: score x (1 + 0.15 x in-set links)."""
    if len(rows) < 2:
        return rows
    counts: dict[str, int] = {}
    # kenso's boost rests on declared relations; inline links (#17) are graph edges for
    # get_related and find_related, not ranking evidence until #18 measures them as such
    for source, target in edges.within(conn, [r.file_path for r in rows], INLINE_LINK):
        counts[source] = counts.get(source, 0) + 1
        counts[target] = counts.get(target, 0) + 1
    if not counts:
        return rows
    boosted = [
        r._replace(score=r.score * (1 + RELATION_BOOST * counts[r.file_path]))
        if r.file_path in counts
        else r
        for r in rows
    ]
    return sorted(boosted, key=_order)


def _blend(conn: sqlite3.Connection, text: str, rows: list[Row]) -> list[Row]:
    """Static-vector similarity blended in, when the index has vectors (search.vectors)."""
    cosine = vectors.similarity(conn, text, [r.chunk_id for r in rows])
    if not cosine:
        return rows
    weight = vectors.WEIGHT
    blended = [r._replace(score=r.score * (1 + weight * cosine.get(r.chunk_id, 0.0))) for r in rows]
    return sorted(blended, key=_order)
