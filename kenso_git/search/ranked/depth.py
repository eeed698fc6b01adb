"""How deep a search ranks (#31): the depth its stages fetch for, and how a list longer than
the agent's page is made of rankings at growing depths.

The document signals weigh each candidate against the others fetched, so a ranking at 5 or
at 20 could order the first pages otherwise than the ranking at 10 that the `search` tool's
first page and the relevance benchmark read. With signal `fill`, a search for fewer than 10
fetches for 10 (`ranked_depth`), and one for more continues the ranking at 10 with what
each deeper ranking of `DEPTHS` adds (`listed`, and the `search` tool's pages in
search/lang/pipeline.py), scored under the last one listed (`continued`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenso_git.search.ranked.rank import FILL_DOCUMENTS

if TYPE_CHECKING:
    from collections.abc import Callable

    from kenso_git.search.ranked.cascade import Ranked
    from kenso_git.search.ranked.cascade import Row

# The rankings a list longer than the agent's page is made of: each adds the documents the
# ones before did not hold, so a longer list never changes its first results.
DEPTHS = (FILL_DOCUMENTS, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)


def ranked_depth(limit: int, signals: frozenset[str]) -> int:
    """How many documents the stages fetch for: `limit`, and with signal `fill` at least the
    agent's page (`FILL_DOCUMENTS`). The document signals weigh each candidate against the
    others fetched, so a search for 5 ranked among fewer than one for 10 and could put
    another page first; now the first results are the same for every `limit` up to 10."""
    return max(limit, FILL_DOCUMENTS) if "fill" in signals else limit


def continued(last: float | None, fresh: list[Row]) -> list[Row]:
    """`fresh`, the documents a deeper ranking adds to a list whose last score is `last`
    (None: nothing listed yet), scaled so that none scores above it: each ranking weighs
    its candidates on its own scale, and a list's scores (and the relevance labels read
    from them) must not rise from one ranking's documents to the next's."""
    if last is None or not fresh:
        return fresh
    top = max(r.score for r in fresh)
    if top <= last:
        return fresh
    factor = last / top
    return [r._replace(score=r.score * factor) for r in fresh]


def listed(rank_at: Callable[[int], Ranked], limit: int, signals: frozenset[str]) -> Ranked:
    """The best `limit` documents, `rank_at(depth)` ranking them at a depth: with signal
    `fill`, past `FILL_DOCUMENTS` the list `DEPTHS` makes, whose first ten are those of the
    ranking at 10 whatever `limit` is (a ranking at 20 weighs more candidates against each
    other and could order them otherwise); else the ranking at `limit`."""
    if limit <= FILL_DOCUMENTS or "fill" not in signals:
        return rank_at(limit)
    rows: list[Row] = []
    seen: set[str] = set()
    corrected: str | None = None
    for depth in (*DEPTHS, limit) if limit > DEPTHS[-1] else DEPTHS:
        found = rank_at(depth)
        corrected = corrected or found.corrected
        last = rows[-1].score if rows else None
        rows += continued(last, [r for r in found.rows if r.file_path not in seen])
        seen.update(r.file_path for r in found.rows)
        if len(rows) >= limit or len(found.rows) < depth:
            break
    past = (*(r.file_path for r in rows[limit:]), *(p for p in found.beyond if p not in seen))
    return found._replace(rows=tuple(rows[:limit]), corrected=corrected, beyond=past)
