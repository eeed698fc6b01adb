"""A wake-up call from the watcher's thread to an `/events` stream on the event loop.

A stream looks at the index's generation every `POLL_S` (hooks and the CLI write from other
processes, which send nothing); a sync by this process's watcher pokes it at once, so the
stream says `event: index` as soon as the commit is done rather than up to a poll later.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from kenso_git.triggers.watcher import Watcher


class Wake:
    """An event the watcher sets after each sync; `wait(timeout)` returns on it or later."""

    def __init__(self, watcher: Watcher | None) -> None:
        self._event = asyncio.Event()
        self._unsubscribe: Callable[[], None] | None = None
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): the stream polls only
            self._loop = None
        if watcher is not None and self._loop is not None:
            self._unsubscribe = watcher.subscribe(self._poke)

    def _poke(self) -> None:
        """Called in the watcher's thread: set the event on the stream's loop."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                self._loop.call_soon_threadsafe(self._event.set)

    async def wait(self, timeout: float) -> None:
        """Return when the watcher synced, or after `timeout` seconds."""
        if self._loop is None:
            await anyio.sleep(timeout)
            return
        with anyio.move_on_after(timeout):
            await self._event.wait()
        self._event.clear()

    def close(self) -> None:
        """Stop listening to the watcher."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
