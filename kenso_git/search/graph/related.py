"""Documents linked to a document, breadth-first up to three hops (spec §5.3 `get_related`).

Differences from kenso 2.0.0 (§8.11, §8.24): breadth-first with one query per level, each
document reported once at its shortest depth (another relation type to it at that depth is
another row), a deterministic order (depth, related_path, relation_type), and a `via` key
naming the node a depth >= 2 row was reached from.

An MCP answer holds at most `pagination.MAX_ANSWER_CHARS` of JSON: `related_page` gives the
rows from the one after a cursor's, as many as fit, and a keyset cursor on that order
(`k2-<hex of [depth, related_path, relation_type]>-<check>`) when more follow; like
`changed_docs`'s, it survives changes to the graph and names no row the list would not give.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from kenso_git.errors import UsageError
from kenso_git.search import pagination
from kenso_git.store import edges

if TYPE_CHECKING:
    from kenso_git.search.results import RelatedList
    from kenso_git.search.results import RelatedRow

MIN_DEPTH, MAX_DEPTH = 1, 3

# (related path, relation type) -> (direction, via)
_Level = dict[tuple[str, str], tuple[str, str]]


def _level(
    conn: sqlite3.Connection,
    frontier: list[str],
    visited: set[str],
    relation_type: str | None,
    path_filter: Callable[[str], bool] | None,
) -> _Level:
    """New documents one hop from `frontier`, with the direction relative to `via`."""
    nodes = set(frontier)
    found: _Level = {}
    for source, target, rtype in edges.touching(conn, frontier, relation_type):
        ends = []
        if source in nodes:
            ends.append((target, "outgoing", source))
        if target in nodes:
            ends.append((source, "incoming", target))
        for related, direction, via in ends:
            if related in visited or (path_filter is not None and not path_filter(related)):
                continue
            key = (related, rtype)
            candidate = (direction, via)
            kept = found.get(key)
            if kept is None or (candidate[1], candidate[0]) < (kept[1], kept[0]):
                found[key] = candidate
    return found


def get_related(
    conn: sqlite3.Connection,
    path: str,
    *,
    depth: int = 1,
    relation_type: str | None = None,
    path_filter: Callable[[str], bool] | None = None,
) -> list[RelatedRow]:
    """Linked documents of `path`, nearest first; unknown or unlinked paths give []."""
    if path_filter is not None and not path_filter(path):
        return []
    depth = min(max(MIN_DEPTH, int(depth)), MAX_DEPTH)
    visited = {path}
    frontier = [path]
    out: list[RelatedRow] = []
    for level in range(1, depth + 1):
        found = _level(conn, frontier, visited, relation_type, path_filter)
        if not found:
            break
        for (related, rtype), (direction, via) in sorted(found.items()):
            row: RelatedRow = {
                "related_path": related,
                "relation_type": rtype,
                "direction": direction,
                "depth": level,
            }
            if level >= 2:
                row["via"] = via
            out.append(row)
        frontier = sorted({related for related, _ in found})
        visited.update(frontier)
    return out


_Key = tuple[int, str, str]  # a row's place in the order: (depth, related_path, relation_type)


class RelatedCursorError(pagination.CursorError):
    """A `get_related` cursor that is malformed or from another request."""

    def __init__(self, cursor: str) -> None:
        UsageError.__init__(
            self,
            f"cursor {cursor[:80]!r} is not a next_cursor of get_related for this path, "
            "depth and relation_type",
            hint="pass next_cursor of the previous answer with the same path, depth and "
            "relation_type, or omit cursor to list from the first row",
        )


def related_page(
    conn: sqlite3.Connection,
    path: str,
    *,
    depth: int = 1,
    relation_type: str | None = None,
    cursor: str | None = None,
    path_filter: Callable[[str], bool] | None = None,
) -> RelatedList:
    """`get_related`'s rows from the one after `cursor`'s, as many as an answer holds:
    `truncated` and `next_cursor` then say that more follow; `total` counts every row.

    Raises:
        RelatedCursorError: the cursor is malformed or from another request.
    """
    depth = min(max(MIN_DEPTH, int(depth)), MAX_DEPTH)
    check = pagination.request_check("get_related", path, depth, relation_type)
    after = _resumes_after(cursor, check)
    rows = get_related(
        conn, path, depth=depth, relation_type=relation_type, path_filter=path_filter
    )
    rest = rows if after is None else [r for r in rows if _key(r) > after]

    def page(kept: list[RelatedRow], more: bool) -> RelatedList:
        resume = _cursor(kept[-1], check) if more and kept else None
        return {
            "results": kept,
            "total": len(rows),
            "truncated": resume is not None,
            "next_cursor": resume,
        }

    whole = page(rest, False)
    if _fits(whole):
        return whole
    return page(rest[: pagination.most_that_fit(rest, page, _fits)], True)


def _fits(page: RelatedList) -> bool:
    return len(json.dumps(page, indent=2, ensure_ascii=False)) <= pagination.MAX_ANSWER_CHARS


def _key(row: RelatedRow) -> _Key:
    return row["depth"], row["related_path"], row["relation_type"]


def _cursor(row: RelatedRow, check: str) -> str:
    return pagination.keyset_cursor(json.dumps(list(_key(row)), ensure_ascii=False), check)


def _resumes_after(cursor: str | None, check: str) -> _Key | None:
    """The row after which `cursor` resumes the list (None without one)."""
    if not cursor:
        return None
    try:
        key = json.loads(pagination.read_keyset(cursor, check) or "")
    except (pagination.CursorError, ValueError):
        raise RelatedCursorError(cursor) from None
    if not (
        isinstance(key, list)
        and len(key) == 3
        and type(key[0]) is int
        and all(isinstance(part, str) for part in key[1:])
    ):
        raise RelatedCursorError(cursor)
    return key[0], key[1], key[2]
