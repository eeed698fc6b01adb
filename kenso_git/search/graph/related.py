"""Documents linked to a document, breadth-first up to three hops (spec §5.3 `get_related`).

Differences from kenso 2.0.0 (§8.11, §8.24): breadth-first with one query per level, each
document reported once at its shortest depth (another relation type to it at that depth is
another row), a deterministic order (depth, related_path, relation_type), and a `via` key
naming the node a depth >= 2 row was reached from.

An MCP answer holds at most `pagination.MAX_ANSWER_CHARS` of JSON: `related_page` gives the
rows from the one after a cursor's, as many as fit, and a keyset cursor on that order
(`k2-<hex of [depth, related_path, relation_type]>-<check>`) when more follow; like
`changed_docs`'s, it survives changes to the graph and names no row the list would not give.

Walking every page of a long list costs about what its first page does: a request without
a cursor walks the graph and keeps the list (per index generation, request and scope); a
page with a cursor bisects to its place in it and measures only the rows a page could
hold. The gate judges the start, every path a page shows and every hop on the way to each
(its `via`, that row's `via`, up to the start) again, and walks the graph again if it
refuses one now: a kept list never shows a path the gate refuses nor a row reached only
through one (a doc an ignore file or a nested repository's `.git` hides since the first
page), though until the index changes its `total` may count a row the files on disk hide
since that no page shows yet.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Callable
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.errors import UsageError
from kenso_git.search import pagination
from kenso_git.search.graph import kept
from kenso_git.search.graph.kept import Entry as _Entry
from kenso_git.store import edges

if TYPE_CHECKING:
    from kenso_git.search.results import RelatedList
    from kenso_git.search.results import RelatedRow

MIN_DEPTH, MAX_DEPTH = 1, 3

# (related path, relation type) -> (direction, via)
_Level = dict[tuple[str, str], tuple[str, str]]
_Key = tuple[int, str, str]  # a row's place in the order: (depth, related_path, relation_type)


def _level(
    conn: sqlite3.Connection,
    frontier: list[str],
    visited: set[str],
    relation_type: str | None,
    path_filter: Callable[[str], bool] | None,
) -> _Level:
    """New documents one hop from `frontier`, with the direction relative to `via`."""
    # each `via` and relation type is one string object however many rows name it: a
    # kept list of a hub's thousands of rows holds each once
    nodes = {node: node for node in frontier}
    types: dict[str, str] = {}
    found: _Level = {}
    for source, target, name in edges.touching(conn, frontier, relation_type):
        rtype = types.setdefault(name, name)
        ends = []
        if source in nodes:
            ends.append((target, "outgoing", nodes[source]))
        if target in nodes:
            ends.append((source, "incoming", nodes[target]))
        for related, direction, via in ends:
            if related in visited or (path_filter is not None and not path_filter(related)):
                continue
            key = (related, rtype)
            candidate = (direction, via)
            kept = found.get(key)
            if kept is None or (candidate[1], candidate[0]) < (kept[1], kept[0]):
                found[key] = candidate
    return found


def _walk(
    conn: sqlite3.Connection,
    path: str,
    depth: int,
    relation_type: str | None,
    path_filter: Callable[[str], bool] | None,
) -> list[_Entry]:
    """The rows of `get_related`, in order, as tuples (a kept list holds no dicts)."""
    if path_filter is not None and not path_filter(path):
        return []
    visited = {path}
    frontier = [path]
    out: list[_Entry] = []
    for level in range(1, depth + 1):
        found = _level(conn, frontier, visited, relation_type, path_filter)
        if not found:
            break
        out += [(level, *pair, *ends) for pair, ends in sorted(found.items())]
        frontier = sorted({related for related, _ in found})
        visited.update(frontier)
    return out


def _row(entry: _Entry) -> RelatedRow:
    level, related, rtype, direction, via = entry
    row: RelatedRow = {
        "related_path": related,
        "relation_type": rtype,
        "direction": direction,
        "depth": level,
    }
    if level >= 2:
        row["via"] = via
    return row


def _clamp(depth: int) -> int:
    return min(max(MIN_DEPTH, int(depth)), MAX_DEPTH)


def get_related(
    conn: sqlite3.Connection,
    path: str,
    *,
    depth: int = 1,
    relation_type: str | None = None,
    path_filter: Callable[[str], bool] | None = None,
) -> list[RelatedRow]:
    """Linked documents of `path`, nearest first; unknown or unlinked paths give []."""
    return [_row(e) for e in _walk(conn, path, _clamp(depth), relation_type, path_filter)]


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
    depth = _clamp(depth)
    check = pagination.request_check("get_related", path, depth, relation_type)
    after = _resumes_after(cursor, check)

    def walk() -> list[_Entry]:
        return _walk(conn, path, depth, relation_type, path_filter)

    key = kept.list_key(conn, path_filter, (path, depth, relation_type))
    if key is None:
        return _page(walk(), after, check)
    if after is None:  # a first page walks the graph as it is now, and keeps the list
        return _page(kept.keep(key, walk()), None, check)
    entries = kept.get_or_walk(key, walk)
    page = _page(entries, after, check)
    if path_filter is None or _all_pass(path_filter, path, page["results"], entries):
        return page
    # the gate refuses a row, or a hop on its way, it let through when the list was
    # walked: walk it again
    return _page(kept.keep(key, walk()), after, check)


def _all_pass(
    gate: Callable[[str], bool], path: str, rows: list[RelatedRow], entries: Sequence[_Entry]
) -> bool:
    """Whether the gate lets through the start, every path `rows` show and every hop on
    the way to each from the start (its `via`, the `via` of that one's row...): a row
    reached only through a doc the gate hides now is not listed by a walk of the graph
    now, so a page must not list it either."""
    if not gate(path):
        return False
    judged: set[tuple[int, str]] = set()  # hops (depth, path) whose way is judged already
    for row in rows:
        if not gate(row["related_path"]):
            return False
        level, via = row["depth"] - 1, row.get("via")
        while via is not None and level >= 1 and (level, via) not in judged:
            if not gate(via):
                return False
            judged.add((level, via))
            via = _via_of(entries, level, via)
            level -= 1
    return True


def _via_of(entries: Sequence[_Entry], level: int, path: str) -> str | None:
    """The `via` of the first row of `path` at depth `level` in the list: the hop before
    it (None at depth 1, reached from the start itself)."""
    at = bisect.bisect_left(entries, (level, path, ""), key=_place)
    if at == len(entries) or entries[at][:2] != (level, path) or level < 2:
        return None
    return entries[at][4]


def _page(entries: Sequence[_Entry], after: _Key | None, check: str) -> RelatedList:
    """The page of the rows after `after`, cut to the answer budget as measuring each
    candidate page's JSON would cut it, but by adding up the rows' sizes: only the rows a
    page could hold are made, each measured once; a page of more rows cannot fit."""
    start = 0 if after is None else bisect.bisect_right(entries, after, key=_place)
    count = len(entries) - start
    could: list[RelatedRow] = []
    sizes = [0]  # sizes[k]: the characters of could[:k] in a page's JSON
    for at in range(start, len(entries)):  # stops long before the end of a long list
        row = _row(entries[at])
        size = sizes[-1] + _nested_chars(row)
        if size > pagination.MAX_ANSWER_CHARS:
            break
        could.append(row)
        sizes.append(size)

    def page(shown: list[RelatedRow], more: bool) -> RelatedList:
        resume = _cursor(shown[-1], check) if more and shown else None
        return {
            "results": shown,
            "total": len(entries),
            "truncated": resume is not None,
            "next_cursor": resume,
        }

    def chars(shown: list[RelatedRow], more: bool) -> int:
        """len(json.dumps(page(shown, more), indent=2)): the page with no rows, less its
        empty list, plus each row after a line break and four spaces, commas between the
        rows, and the list's brackets, the closing one on its own line after two spaces."""
        frame = page(shown, more)
        frame["results"] = []
        listed = sizes[len(shown)] + 6 * len(shown) + 4 if shown else 2
        return len(json.dumps(frame, indent=2, ensure_ascii=False)) - 2 + listed

    if len(could) == count and _fits(chars(could, False)):  # the whole rest fits
        return page(could, False)
    fit = pagination.most_that_fit(could, chars, _fits, count=count)
    return page([_row(e) for e in entries[start : start + fit]], True)


def _nested_chars(row: RelatedRow) -> int:
    """The characters of `row` in a page's JSON (indent 2, two levels deep): its one-line
    JSON with a space after each colon, plus a line break and six spaces before each key
    and a line break and four spaces before the closing brace (its values are scalars)."""
    return len(json.dumps(row, ensure_ascii=False, separators=(",", ": "))) + 7 * len(row) + 5


def _fits(chars: int) -> bool:
    return chars <= pagination.MAX_ANSWER_CHARS


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
    except (pagination.CursorError, ValueError, RecursionError):  # nested past json's depth
        raise RelatedCursorError(cursor) from None
    if not (
        isinstance(key, list)
        and len(key) == 3
        and type(key[0]) is int
        and all(isinstance(part, str) for part in key[1:])
    ):
        raise RelatedCursorError(cursor)
    return key[0], key[1], key[2]


def _place(entry: _Entry) -> _Key:
    return entry[0], entry[1], entry[2]
