"""A small bounded LRU of computed match lists, so the later pages of a query are slices.

Keys hold the index's write generation (`docmeta.generation`), so a sync makes every older
entry unreachable at once; entries are evicted least recently used first. The values are
shared between threads and callers: never mutate one (`search.pipeline.Ranking`, which
grows as deeper pages are asked for, guards itself with its own lock).
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
    """A thread-safe mapping of at most `size` entries weighing at most `max_weight` in
    all (`weigh(value)`, e.g. a list's length), least recently used evicted first."""

    def __init__(
        self, size: int, max_weight: int | None = None, weigh: Callable[[V], int] | None = None
    ) -> None:
        self._size = size
        self._max_weight = max_weight
        self._weigh = weigh
        self._weight = 0
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The cached value of `key`, made (outside the lock) and kept when absent."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # two threads may both make it: the same value, the last one kept
        weight = self._weigh(value) if self._weigh is not None else 0
        if self._max_weight is not None and weight > self._max_weight:
            return value  # larger than the whole cache: served, not kept
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None and self._weigh is not None:
                self._weight -= self._weigh(old)
            self._items[key] = value
            self._weight += weight
            while len(self._items) > self._size or (
                self._max_weight is not None and self._weight > self._max_weight
            ):
                _, evicted = self._items.popitem(last=False)
                if self._weigh is not None:
                    self._weight -= self._weigh(evicted)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()
            self._weight = 0

    def __len__(self) -> int:
        return len(self._items)
