"""The thread that runs a tool call's own freshness check (`Writes._refresh`), so that the
call waits for it no longer than its budget can spare (`store.budget.wait_to_answer`).

The check asks `git status` of the whole tree (or walks it outside git): on a huge or slow
repository, or a git held up by a `core.fsmonitor` hook or a stalled mount, it runs far past
`call-budget`, and neither SQLite's progress handler nor `budget.check()` can stop a child
process or a directory listing. Run here instead, the check is never abandoned half-way: it
goes on after the call answered from the index as it is (flagged stale), syncs what it
found under the index's write lock as any check does, and reaps its git (a hung git is
stopped at its own time limit, `gitrun`); later calls wait for it as for any check running.

One daemon thread per knowledge base, so its read-only connection and its cache of the
files rows (`Base._files_snapshot`) last from one check to the next; it ends after
`IDLE_S` without work. Checks never overlap (the knowledge base's tickets say which runs),
so one thread is enough.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic
from typing import TypeVar

R = TypeVar("R")

# The check did not finish in what the call's budget could spare (`Writes._refresh`).
CHECK_SLOW = (
    "this call's freshness check of the index (`git status` of the work tree, or a walk of "
    "it outside git) had not finished when the call had to answer within its time budget "
    "(`call-budget`); the check goes on in the background and syncs what changed, and a "
    "later call sees it"
)


class CheckThread(Generic[R]):
    """Runs the checks handed to it, one at a time, on a thread of its own."""

    IDLE_S = 30.0  # seconds without a check before the thread ends (the next one starts one)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._jobs: deque[tuple[Callable[[], R], Future[R]]] = deque()
        self._running = False

    def submit(self, check: Callable[[], R]) -> Future[R]:
        """Run `check` on the thread; what it returns or raises is the future's.

        Raises:
            RuntimeError: no thread could be started (`check` is not run).
        """
        future: Future[R] = Future()
        with self._lock:
            if self._running:
                self._wake.notify()
            else:  # the new thread takes the lock only once this one lets it go
                threading.Thread(target=self._run, name="kenso-check", daemon=True).start()
                self._running = True
            self._jobs.append((check, future))
        return future

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._jobs:
                    self._wake.wait(self.IDLE_S)
                if not self._jobs:
                    self._running = False  # under the lock: `submit` starts a new thread
                    return
                check, future = self._jobs.popleft()
            future.set_running_or_notify_cancel()
            try:
                result = check()
            except BaseException as err:  # the caller's to raise, as concurrent.futures does
                future.set_exception(err)
            else:
                future.set_result(result)
