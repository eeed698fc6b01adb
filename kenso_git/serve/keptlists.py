"""The change lists of the ranges `changed_docs` paged lately (serve/history.py), least
recently used evicted first, so a later page is cut from its range's list instead of running
git's diff and log again (search/graph/kept.py keeps `get_related`'s lists the same way).
The lists are shared between threads: never mutate one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic
from typing import TypeVar

KEPT_LISTS = 8  # the lists of the ranges paged lately
KEPT_ROWS = 100_000  # their changes in all; a longer list is made again for each page

T = TypeVar("T")


class KeptLists(Generic[T]):
    """At most `KEPT_LISTS` lists of at most `KEPT_ROWS` rows in all, by key."""

    def __init__(self) -> None:
        self._lists: OrderedDict[Hashable, list[T]] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> list[T] | None:
        """The list kept under `key`, or None."""
        with self._lock:
            found = self._lists.get(key)
            if found is not None:
                self._lists.move_to_end(key)
            return found

    def put(self, key: Hashable, rows: list[T]) -> None:
        """Keep `rows` under `key` (not when longer than `KEPT_ROWS`)."""
        if len(rows) > KEPT_ROWS:
            return
        with self._lock:
            self._drop(key)
            self._lists[key] = rows
            self._rows += len(rows)
            while len(self._lists) > KEPT_LISTS or self._rows > KEPT_ROWS:
                self._rows -= len(self._lists.popitem(last=False)[1])

    def _drop(self, key: Hashable) -> None:  # the lock held
        gone = self._lists.pop(key, None)
        self._rows -= 0 if gone is None else len(gone)


class Same:
    """A key part equal only to one for the very same object (held: its id is not reused)."""

    __slots__ = ("_of",)

    def __init__(self, of: object) -> None:
        self._of = of

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other._of is self._of

    def __hash__(self) -> int:
        return id(self._of)
