"""JSON payloads of the search tools, shared by the MCP server and `search --json` (spec §5.3).

Differences from kenso 2.0.0: `search_multi` clamps its per-query limit to `limit_max` and
keeps the best result's highlight (§8.17); `get_doc` reports the document's title, not the
first chunk's (§8.3). kenso's contract errors (an empty query, no queries, an unknown document)
are raised as `KensoError`s; the MCP service turns them back into kenso's error payloads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.errors import DocumentNotFoundError
from kenso_git.errors import EmptyQueryError
from kenso_git.errors import NoQueriesError
from kenso_git.search.preview import DEFAULT_PREVIEW_CHARS
from kenso_git.search.preview import content_preview
from kenso_git.search.preview import match_source
from kenso_git.search.preview import query_terms
from kenso_git.search.ranked.cascade import SearchResult
from kenso_git.search.ranked.cascade import search
from kenso_git.search.ranked.hits import Hit
from kenso_git.search.ranked.hits import PathFilter
from kenso_git.search.ranked.hits import decode_tags
from kenso_git.search.ranked.synonyms import Synonyms
from kenso_git.store import chunkreads
from kenso_git.store import files

if TYPE_CHECKING:
    from kenso_git.search.results import DocResult
    from kenso_git.search.results import SearchDocsResult
    from kenso_git.search.results import SearchItem
    from kenso_git.search.results import SearchMultiResult

MULTI_MAX_QUERIES = 5
RRF_K = 60


def _item(hit: Hit, terms: Sequence[str], budget: int, score: float) -> SearchItem:
    tags = hit.tags or ()
    source = match_source(terms, hit.title, hit.section_path, tags, hit.category)
    item: SearchItem = {
        "file_path": hit.file_path,
        "title": hit.title,
        "category": hit.category,
        "content_preview": content_preview(
            source,
            title=hit.title,
            section_path=hit.section_path,
            tags=tags,
            category=hit.category,
            content=hit.content,
            terms=terms,
            budget=budget,
        ),
        "match_source": source,
        "score": round(score, 4),
        "cascade_stage": hit.cascade_stage,
        "relevance": hit.relevance,
    }
    if tags:
        item["tags"] = list(tags)
    if hit.related_count > 0:
        item["related_count"] = hit.related_count
    if hit.highlight:
        item["highlight"] = hit.highlight
    return item


def search_docs_payload(
    result: SearchResult, *, preview_chars: int = DEFAULT_PREVIEW_CHARS
) -> SearchDocsResult:
    """The `search_docs` answer: an array of items, or the corrected-query object.

    Raises:
        EmptyQueryError: the query is blank.
    """
    if not result.query.strip():
        raise EmptyQueryError()
    terms = query_terms(result.query)
    items = [_item(hit, terms, preview_chars, hit.score) for hit in result.hits]
    if result.corrected_query is not None:
        return {
            "corrected_query": result.corrected_query,
            "original_query": result.query,
            "results": items,
        }
    return items


def multi_queries(queries: Sequence[str] | None) -> list[str]:
    """The queries `search_multi` is given, trimmed, blank ones dropped: the first
    MULTI_MAX_QUERIES of them are run."""
    return [q.strip() for q in queries or () if q and q.strip()]


def search_multi_payload(
    conn: sqlite3.Connection,
    queries: Sequence[str] | None,
    *,
    category: str | None = None,
    limit: int = 5,
    limit_max: int = 20,
    preview_chars: int = DEFAULT_PREVIEW_CHARS,
    synonyms: Synonyms | None = None,
    path_filter: PathFilter | None = None,
) -> SearchMultiResult:
    """Several queries fused by Reciprocal Rank Fusion (spec §4.13); blank ones are dropped.

    Raises:
        NoQueriesError: `queries` is empty or None.
    """
    if not queries:
        raise NoQueriesError()
    kept = multi_queries(queries)[:MULTI_MAX_QUERIES]
    if not kept:
        return []
    limit = min(max(1, int(limit)), max(1, limit_max))
    per_query = min(limit * 2, max(1, limit_max))
    fused: dict[str, float] = {}
    best: dict[str, Hit] = {}
    corrections: dict[str, str] = {}
    for query in kept:
        result = search(
            conn,
            query,
            category=category,
            limit=per_query,
            synonyms=synonyms,
            path_filter=path_filter,
        )
        if result.corrected_query is not None:
            corrections[query] = result.corrected_query
        for rank, hit in enumerate(result.hits, start=1):
            fused[hit.file_path] = fused.get(hit.file_path, 0.0) + 1.0 / (RRF_K + rank)
            if hit.file_path not in best or hit.score > best[hit.file_path].score:
                best[hit.file_path] = hit
    order = sorted(fused, key=lambda path: -fused[path])[:limit]
    terms = query_terms(" ".join(kept))
    items = [_item(best[path], terms, preview_chars, fused[path]) for path in order]
    if corrections:
        return {"corrections": corrections, "results": items}
    return items


def _document_title(conn: sqlite3.Connection, path: str) -> str | None:
    return files.indexed_title(conn, path)


def get_doc_payload(
    conn: sqlite3.Connection, path: str, *, max_length: int | None = None
) -> DocResult:
    """The whole stored document: its chunks joined, with title, category, audience, tags.

    Raises:
        DocumentNotFoundError: no chunk of the index has that path.
    """
    rows = chunkreads.document_chunks(conn, path)
    if not rows:
        raise DocumentNotFoundError(path)
    first = rows[0]
    content = "\n\n".join(row[1] for row in rows)
    tags_raw = next((row[4] for row in rows if row[4] is not None), None)
    tags = decode_tags(tags_raw)
    payload: DocResult = {
        "title": _document_title(conn, path) or first[0],
        "content": content,
        "category": first[2],
        "audience": first[3],
        "tags": list(tags) if tags is not None else None,
    }
    if max_length and len(content) > max_length:
        payload["content"] = content[:max_length] + "..."
        payload["truncated"] = True
    return payload
