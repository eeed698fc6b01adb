"""The indexes of other revisions a server keeps ready (#29): a cached revision searches as
fast as the checkout.

A call with `ref` leases the copy of its commit (and view); the first lease builds it,
outside the call's budgets (`store.budget.aside`), the next ones reuse it while it lasts. At
most `size` copies are kept, the least recently used let go first, never while a call is
using it (a copy over the bound is let go when its last call ends). A copy is thrown away
when an ignore-rule file it was made with has changed.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.records import NamedTuple
from kenso_git.store import budget

if TYPE_CHECKING:
    from kenso_git.index.atref import Revision
    from kenso_git.kb import KnowledgeBase


class RevisionCopy(NamedTuple):
    """A knowledge base over a revision's index, and the folder that holds it."""

    kb: KnowledgeBase
    revision: Revision
    folder: Path
    rules: dict[str, tuple[int, int, int] | None]  # the ignore-rule files it was made with

    def close(self) -> None:
        """Close its connections and remove its folder."""
        try:
            self.kb.close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


Key = tuple[str, str]  # (commit, view)


class _Entry:
    __slots__ = ("copy", "gone", "users")

    def __init__(self, copy: RevisionCopy) -> None:
        self.copy = copy
        self.users = 0
        self.gone = False  # let go: closed when its last user leaves


class RevisionPool:
    """Copies of revisions' indexes, least recently used first out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Key, threading.Lock] = {}
        # a pool nobody closed (a server object dropped, the interpreter ending) still
        # removes its copies
        weakref.finalize(self, _close_all, self._entries)

    @contextlib.contextmanager
    def lease(self, key: Key, build: Callable[[], RevisionCopy]) -> Iterator[RevisionCopy]:
        """The copy for `key`, built by `build` unless a valid one is kept."""
        entry = self._take(key)
        if entry is None:
            with self._lock:
                gate = self._building.setdefault(key, threading.Lock())
            # the build, or the wait for another call's, is every later call's work: not
            # charged to the budget of the query that asked first
            with budget.aside(), gate:  # one build per key at a time; the others reuse it
                entry = self._take(key)
                if entry is None:
                    entry = _Entry(build())
                    entry.users = 1
                    self._keep(key, entry)
        try:
            yield entry.copy
        finally:
            self._release(entry)

    def _take(self, key: Key) -> _Entry | None:
        from kenso_git.repo.ignore import signatures_hold

        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if not signatures_hold(entry.copy.rules):
                del self._entries[key]
                self._let_go(entry)
                return None
            self._entries.move_to_end(key)
            entry.users += 1
            return entry

    def _keep(self, key: Key, entry: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._let_go(old)
            self._entries[key] = entry
            while len(self._entries) > self.size:
                _, oldest = self._entries.popitem(last=False)
                self._let_go(oldest)

    def _let_go(self, entry: _Entry) -> None:
        """(under the lock) Close `entry` now, or when its last user leaves."""
        entry.gone = True
        if entry.users == 0:
            entry.copy.close()

    def _release(self, entry: _Entry) -> None:
        with self._lock:
            entry.users -= 1
            if entry.gone and entry.users == 0:
                entry.copy.close()

    def close(self) -> None:
        """Let every copy go (each closed now or when its call ends)."""
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
            for entry in entries:
                self._let_go(entry)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def _close_all(entries: OrderedDict[Key, _Entry]) -> None:
    for entry in list(entries.values()):
        with suppress(Exception):
            entry.copy.close()
    entries.clear()
