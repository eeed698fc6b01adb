"""What a search hit shows: its preview, highlight, tags, related count and relevance label
(spec §4.10), made from the ranked rows of `search.ranked.cascade`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from collections.abc import Sequence
from typing import Protocol

from kenso_git.records import NamedTuple
from kenso_git.search.preview import clean_highlight
from kenso_git.search.preview import highlight_terms
from kenso_git.search.ranked import cjk
from kenso_git.search.ranked.query import AND
from kenso_git.search.ranked.query import NEAR
from kenso_git.search.ranked.query import Stage
from kenso_git.store import chunkreads
from kenso_git.store import edges

PathFilter = Callable[[str], bool]
# text.links.LINKS_TO, spelt out: importing text.links would load the parser into every
# reader's start-up (tests/search/test_neighbours.py holds the two equal)
INLINE_LINK = "links_to"


class Hit(NamedTuple):
    """One search result: the best chunk of a file."""

    file_path: str
    title: str
    section_path: str
    content: str
    category: str
    score: float
    highlight: str
    cascade_stage: str | None
    relevance: str
    tags: tuple[str, ...] | None
    related_count: int


class RankedRow(Protocol):
    """What `finish` reads of a ranked row (`cascade.Row`)."""

    @property
    def chunk_id(self) -> int: ...
    @property
    def file_path(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def section_path(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def tags(self) -> str | None: ...
    @property
    def score(self) -> float: ...
    @property
    def stage(self) -> Stage | cjk.TrigramStage | None: ...


MIN_EVIDENCE = 0.005  # below it a score rounds to 0.00


def relevance(stage: str | None, score: float, best: float) -> str:
    """`high`/`medium`/`low` from the stage and the score relative to the top result (§4.10)."""
    if score < MIN_EVIDENCE:
        return "low"  # BM25 ~0 (a word in every document): printed as 0.00, it proves nothing
    ratio = score / best if best > 0 else 0.0
    if stage == AND:
        high, medium = ratio >= 0.5, ratio >= 0.25
    elif stage == NEAR:
        high, medium = ratio >= 0.6, ratio >= 0.3
    else:
        high = score >= 8.0 and ratio >= 0.8
        medium = score >= 5.0 and ratio >= 0.5
    return "high" if high else "medium" if medium else "low"


def decode_tags(raw: str | None) -> tuple[str, ...] | None:
    """The tag list stored as JSON text, or None."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        value = [t.strip() for t in raw.split(",")]
    if not isinstance(value, list):
        return None
    tags = tuple(str(t) for t in value if str(t))
    return tags or None


def related_counts(
    conn: sqlite3.Connection, paths: list[str], path_filter: PathFilter | None = None
) -> dict[str, int]:
    """Links with each path as source plus links with it as target, counting only links
    whose other end `path_filter` allows (a hidden document is not even counted)."""
    wanted = set(paths)
    counts: dict[str, int] = {}
    for source, target, _ in edges.touching(conn, paths):
        for end, other in ((source, target), (target, source)):
            if end in wanted and (path_filter is None or path_filter(other)):
                counts[end] = counts.get(end, 0) + 1
    return counts


def snippets(conn: sqlite3.Connection, rows: Sequence[RankedRow]) -> dict[int, str]:
    by_expression: dict[str, list[int]] = {}
    for row in rows:
        if row.stage is not None and not isinstance(row.stage, cjk.TrigramStage):
            by_expression.setdefault(row.stage.expression, []).append(row.chunk_id)
    out: dict[int, str] = {}
    for expression, ids in by_expression.items():
        out.update(chunkreads.snippets(conn, expression, ids))
    return out


def finish(
    conn: sqlite3.Connection, rows: Sequence[RankedRow], text: str, path_filter: PathFilter | None
) -> tuple[Hit, ...]:
    best = rows[0].score
    counts = related_counts(conn, [r.file_path for r in rows], path_filter)
    found = snippets(conn, rows)
    contents = chunkreads.contents(conn, [r.chunk_id for r in rows])
    terms = highlight_terms(text)
    hits = []
    for row in rows:
        label = row.stage.label if row.stage is not None else None
        content = contents.get(row.chunk_id, "")
        snippet = found.get(row.chunk_id, "")
        if isinstance(row.stage, cjk.TrigramStage):
            snippet = cjk.highlight(content, row.stage.terms)
        hits.append(
            Hit(
                file_path=row.file_path,
                title=row.title,
                section_path=row.section_path,
                content=content,
                category=row.category,
                score=row.score,
                highlight=clean_highlight(snippet, content, terms) if snippet else "",
                cascade_stage=label,
                relevance=relevance(label, row.score, best),
                tags=decode_tags(row.tags),
                related_count=counts.get(row.file_path, 0),
            )
        )
    return tuple(hits)
