"""Documents linked to a document, breadth-first up to three hops (spec §5.3 `get_related`).

Differences from kenso 2.0.0 (§8.11, §8.24): breadth-first with one query per level, each
document reported once at its shortest depth (another relation type to it at that depth is
another row), a deterministic order (depth, related_path, relation_type), and a `via` key
naming the node a depth >= 2 row was reached from.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from kenso_git.store import edges

if TYPE_CHECKING:
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
