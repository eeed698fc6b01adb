"""FTS5 matching of the agent `search`: which documents hold every word and phrase.

The expression quotes every term, so the query language never reaches FTS5's own syntax;
`content_paths` skips bm25 (most of a match's cost) for callers that order by path.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from kenso_git.search.lang.querylang import Term
from kenso_git.search.ranked.query import has_token
from kenso_git.store.schema import BM25_WEIGHTS
from kenso_git.text.titlewords import clean

_BM25 = "bm25(chunks_fts, {})".format(", ".join(str(w) for w in BM25_WEIGHTS))
_IDS = "(SELECT value FROM json_each(?))"


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
    # bm25() cannot sit inside an aggregate: rank in a subquery, then keep each file's best
    where = "" if only is None else f" AND c.file_path IN {_IDS}"
    sql = (
        "SELECT file_path, MIN(rank), id, section_path FROM ("
        f"SELECT c.file_path, {_BM25} AS rank, c.id, c.section_path FROM chunks_fts "
        f"JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?{where} "
        "ORDER BY rank) GROUP BY file_path"
    )
    params = (expression,) if only is None else (expression, json.dumps(only))
    return {
        path: (round(-rank, 6), chunk_id, section or "")
        for path, rank, chunk_id, section in conn.execute(sql, params)
    }


def content_paths(conn: sqlite3.Connection, expression: str) -> set[str]:
    """The paths of the documents matching, unscored (bm25 is most of a match's cost)."""
    sql = (
        "SELECT DISTINCT c.file_path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH ?"
    )
    return {path for (path,) in conn.execute(sql, (expression,))}
