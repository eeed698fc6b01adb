"""`find_related`: the documents linked to or from one document, then its neighbours.

A document is related through the link graph (`relates_to` entries both ways, inline
Markdown links both ways: `links_to`, `linked_from`) or by where it lives: the same stem
(`api/auth.md` and `guides/auth.md`) or the same folder. Each related document is listed
once with every reason, links first, then same stem, then same folder, ties by path. Only
indexed documents that `path_filter` lets through are listed: an out-of-scope neighbour is
never revealed, not even by a count. Pages use the ranked offset cursors of `pagination`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from kenso_git.errors import DocumentNotFoundError
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.store import edges
from kenso_git.text.links import LINKS_TO

if TYPE_CHECKING:
    from kenso_git.search.results import RelatedPage

PathFilter = Callable[[str], bool]
# the order reasons are listed and ranked in (a lower index is a stronger reason)
REASONS = ("links_to", "linked_from", "relates_to", "related_from", "same_stem", "same_folder")


def _stem(path: str) -> str:
    name = path.rpartition("/")[2]
    return name.rpartition(".")[0] or name


_Found = dict[str, tuple[set[str], set[str]]]  # path -> (reasons, relation types)


def _reasons(conn: sqlite3.Connection, path: str, docs: dict[str, docmeta.Doc]) -> _Found:
    found: _Found = {}

    def add(other: str, why: str, relation: str | None = None) -> None:
        if other == path or other not in docs:
            return
        reasons, relations = found.setdefault(other, (set(), set()))
        reasons.add(why)
        if relation is not None:
            relations.add(relation)

    for _, target, relation in edges.outgoing(conn, path):
        if relation == LINKS_TO:
            add(target, "links_to")
        else:
            add(target, "relates_to", relation)
    for source, _, relation in edges.incoming(conn, path):
        if relation == LINKS_TO:
            add(source, "linked_from")
        else:
            add(source, "related_from", relation)
    folder, stem = path.rpartition("/")[0], _stem(path)
    for other in docs:
        if other.rpartition("/")[0] == folder:
            add(other, "same_folder")
        elif _stem(other) == stem:
            add(other, "same_stem")
    return found


def find_related(
    conn: sqlite3.Connection,
    path: str,
    *,
    page_size: int | None = None,
    cursor: str | None = None,
    path_filter: PathFilter | None = None,
) -> RelatedPage:
    """One page of the documents related to `path`.

    Raises:
        DocumentNotFoundError: no indexed document (that `path_filter` allows) is `path`.
        StaleCursorError: the cursor was issued before the index changed.
        CursorError: the cursor is malformed or from another request.
    """
    size = pagination.clamp_page(page_size)
    generation = docmeta.generation(conn)
    check = pagination.request_check("related", path)
    offset = pagination.read_offset(cursor, check, generation)
    docs = docmeta.load(conn)
    if path_filter is not None:
        docs = {p: d for p, d in docs.items() if path_filter(p)}
    if path not in docs:
        raise DocumentNotFoundError(path)
    found = _reasons(conn, path, docs)
    ordered = sorted(
        found.items(),
        key=lambda item: (min(REASONS.index(w) for w in item[1][0]), item[0]),
    )
    page: RelatedPage = {
        "path": path,
        "results": [
            {
                "path": other,
                "why": sorted(reasons, key=REASONS.index),
                "relation_types": sorted(relations),
                "title": docs[other].title,
            }
            for other, (reasons, relations) in ordered[offset : offset + size]
        ],
        "total": len(ordered),
        "returned": 0,
        "page_size": size,
        "next_cursor": None,
        "has_more": False,
        "token_budget": 0,
    }
    return _fit(page, offset, len(ordered), check, generation)


def _fit(page: RelatedPage, offset: int, total: int, check: str, generation: object) -> RelatedPage:
    """The page cut to the answer budget, its cursor resuming after the last entry kept."""
    while True:
        kept = len(page["results"])
        more = offset + kept < total
        page["returned"] = kept
        page["has_more"] = more
        page["next_cursor"] = (
            pagination.offset_cursor(offset + kept, check, generation) if more else None
        )
        page["token_budget"] = pagination.MAX_ANSWER_CHARS // pagination.CHARS_PER_TOKEN
        chars = len(json.dumps(page, indent=2, ensure_ascii=False))
        if chars <= pagination.MAX_ANSWER_CHARS or kept <= 1:
            break
        page["results"].pop()
    page["token_budget"] = -(-chars // pagination.CHARS_PER_TOKEN)
    return page
