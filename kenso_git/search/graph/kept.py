"""The `get_related` and `find_related` lists kept between calls, so a later page is cut
from its list instead of walking the graph again (search/graph/related.py, neighbours.py).

A list is kept under the index's write generation (`docmeta.generation`: a sync makes every
older list unreachable at once), the request (`get_related`'s path, depth and relation type;
`find_related`'s tool name and path) and the scope whose gate judged its rows. A gate names
its scope by a `scope_key` (`ScopedGate`, `NamedGate`); the verdicts of a plain function
could be anybody's, so nothing walked under one is kept.

The key names no reading of the scope's rules: the ignore files and the markers of nested
repositories and environment folders may change between two pages while the index does not
(no watcher, no query-time sync), and nothing counts those changes. So each later page is
judged again by its call's gate: the start, every path it shows and every hop on the way to
each (for `get_related`, each row's `via` up to the start); the list is walked again when
the gate refuses one. No page shows a path the gate refuses now, nor a relation through
one; until the index changes, `total` may still count rows hidden since that no page shows.
Entries are evicted least recently used first; a list longer than `KEPT_ROWS` is not kept.
Both tools' lists share the one budget; a request names its tool, so the list under a key
is always one that tool walked. The lists are shared between threads and callers: never
mutate one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Sequence
from typing import Protocol
from typing import TypeVar
from typing import cast

from kenso_git.search import docmeta
from kenso_git.search.lang.hitcache import LRU

KEPT_LISTS = 16  # the lists of the requests paged lately
KEPT_ROWS = 200_000  # their rows in all (~40 MB); a longer list is walked for each page

# one row of a get_related list, in its order: (depth, related_path, relation_type,
# direction, via)
Entry = tuple[int, str, str, str, str]
EntryT = TypeVar("EntryT")  # a row of some tool's list


class ScopedGate(Protocol):
    """A scope gate for one call that names its scope: `scope_key`, equal (and hashing
    equal) for the gate of every call of that scope."""

    scope_key: Hashable

    def __call__(self, path: str, /) -> bool: ...


class NamedGate:
    """A call's gate naming its scope (`scope_key`): `get_related` keeps the list it walked
    under a scope for that scope's later pages while the index is unchanged, and judges
    every row a page shows, and every hop on its way, again by the call's gate
    (search/graph/related.py)."""

    __slots__ = ("_gate", "scope_key")

    def __init__(self, gate: Callable[[str], bool], scope_key: Hashable) -> None:
        self._gate = gate
        self.scope_key = scope_key

    def __call__(self, path: str) -> bool:
        return self._gate(path)


_LISTS: LRU[Sequence[object]] = LRU(KEPT_LISTS, KEPT_ROWS, len)


def list_key(
    conn: sqlite3.Connection,
    path_filter: Callable[[str], bool] | None,
    request: Hashable,
) -> Hashable | None:
    """The key the list of `request` is kept under, or None when it may not be kept: an
    index without a generation, or a gate that names no scope. A request names its tool
    (`get_related`'s (path, depth, relation_type), `find_related`'s ("find_related",
    path)): no two tools' requests are equal."""
    generation = docmeta.generation(conn)
    if generation is None:
        return None
    if path_filter is None:
        return generation, request, None
    scope: Hashable | None = getattr(path_filter, "scope_key", None)
    return None if scope is None else (generation, request, ("scope", scope))


def get_or_walk(key: Hashable, walk: Callable[[], list[EntryT]]) -> list[EntryT]:
    """The list kept under `key`, walked (and kept) when there is none."""
    # the key's request names the tool whose `walk` made the list kept under it
    return cast("list[EntryT]", _LISTS.get_or_make(key, walk))


def keep(key: Hashable, entries: list[EntryT]) -> list[EntryT]:
    """`entries`, kept under `key` in place of any list kept there before."""
    before = _LISTS.get_or_make(key, lambda: entries)
    if before is not entries and before != entries:
        # the same index and scope judged other verdicts: the files on disk changed under
        # the index, so no list kept is sure any more
        _LISTS.clear()
        _LISTS.get_or_make(key, lambda: entries)
    return entries
