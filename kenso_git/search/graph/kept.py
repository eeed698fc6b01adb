"""The `get_related` lists kept between calls, so a later page is cut from its list
instead of walking the graph again (search/graph/related.py).

A list is kept under the index's write generation (`docmeta.generation`: a sync makes every
older list unreachable at once), the request (path, depth, relation type) and the scope
whose gate judged its rows. A gate names its scope by a `scope_key` (`ScopedGate`, `NamedGate`); the
verdicts of a plain function could be anybody's, so nothing walked under one is kept.
Entries are evicted least recently used first; a list longer than `KEPT_ROWS` is not kept.
The lists are shared between threads and callers: never mutate one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from collections.abc import Hashable
from typing import Protocol

from kenso_git.search import docmeta
from kenso_git.search.lang.hitcache import LRU

KEPT_LISTS = 16  # the lists of the requests paged lately
KEPT_ROWS = 200_000  # their rows in all (~40 MB); a longer list is walked for each page

# one row of a list, in its order: (depth, related_path, relation_type, direction, via)
Entry = tuple[int, str, str, str, str]


class ScopedGate(Protocol):
    """A scope gate for one call that names its scope: `scope_key`, equal (and hashing
    equal) for the gate of every call of that scope."""

    scope_key: Hashable

    def __call__(self, path: str, /) -> bool: ...


class NamedGate:
    """A call's gate naming its scope (`scope_key`): `get_related` keeps the list it walked
    under a scope for that scope's later pages while the index is unchanged, and judges
    every row a page shows again by the call's gate (search/graph/related.py)."""

    __slots__ = ("_gate", "scope_key")

    def __init__(self, gate: Callable[[str], bool], scope_key: Hashable) -> None:
        self._gate = gate
        self.scope_key = scope_key

    def __call__(self, path: str) -> bool:
        return self._gate(path)


_LISTS: LRU[list[Entry]] = LRU(KEPT_LISTS, KEPT_ROWS, len)


def list_key(
    conn: sqlite3.Connection,
    path_filter: Callable[[str], bool] | None,
    request: tuple[str, int, str | None],
) -> Hashable | None:
    """The key the list of `request` is kept under, or None when it may not be kept: an
    index without a generation, or a gate that names no scope."""
    generation = docmeta.generation(conn)
    if generation is None:
        return None
    if path_filter is None:
        return generation, request, None
    scope: Hashable | None = getattr(path_filter, "scope_key", None)
    return None if scope is None else (generation, request, ("scope", scope))


def get_or_walk(key: Hashable, walk: Callable[[], list[Entry]]) -> list[Entry]:
    """The list kept under `key`, walked (and kept) when there is none."""
    return _LISTS.get_or_make(key, walk)


def keep(key: Hashable, entries: list[Entry]) -> list[Entry]:
    """`entries`, kept under `key` in place of any list kept there before."""
    before = _LISTS.get_or_make(key, lambda: entries)
    if before is not entries and before != entries:
        # the same index and scope judged other verdicts: the files on disk changed under
        # the index, so no list kept is sure any more
        _LISTS.clear()
        _LISTS.get_or_make(key, lambda: entries)
    return entries
