"""A small bounded LRU of computed match lists, so the later pages of a query are slices.

Keys hold the index's write generation (`docmeta.generation`), so a sync makes every older
entry unreachable at once; entries are evicted least recently used first. The values are
shared between threads and callers: never mutate one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Hashable
from typing import Generic
from typing import TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """A thread-safe mapping of at most `size` entries, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The cached value of `key`, made (outside the lock) and kept when absent."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # two threads may both make it: the same value, the last one kept
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
