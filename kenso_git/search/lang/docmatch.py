"""FTS5 matching of the agent `search`: which documents hold every word and phrase.

The expression quotes every term, so the query language never reaches FTS5's own syntax;
`content_paths` skips bm25 (most of a match's cost) for callers that order by path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from kenso_git.search.lang.querylang import Term
from kenso_git.search.ranked.query import has_token
from kenso_git.store import chunkreads
from kenso_git.text.titlewords import clean


def fts_expression(terms: Iterable[Term]) -> str | None:
    """The FTS5 expression that needs every term (each quoted), or None when no term has
    a character the tokenizer keeps."""
    parts = [f'"{clean(t.text)}"' for t in terms if has_token(clean(t.text))]
    return " AND ".join(parts) if parts else None


def content_hits(
    conn: sqlite3.Connection, expression: str, only: list[str] | None = None
) -> dict[str, tuple[float, int, str]]:
    """file path -> (score, best chunk id, its section) of the documents matching (of
    `only`, when given)."""
    return {
        path: (round(-rank, 6), chunk_id, section or "")
        for path, rank, chunk_id, section in chunkreads.best_per_document(conn, expression, only)
    }


def content_paths(conn: sqlite3.Connection, expression: str) -> set[str]:
    """The paths of the documents matching, unscored (bm25 is most of a match's cost)."""
    return chunkreads.matching_paths(conn, expression)
