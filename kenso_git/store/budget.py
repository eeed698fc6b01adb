"""A per-call time budget for reads (#13): SQLite stops a statement past the deadline.

The server sets a deadline for the thread running a tool call; the reader connection's
progress handler (every few thousand SQLite VM steps) and `check()` (between the search's
Python stages) stop the call past it with `CallBudgetError`, naming the setting. Writes
are never interrupted: the handler is installed on read-only connections only.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from kenso_git.errors import CallBudgetError
from kenso_git.errors import KensoError

_PROGRESS_STEPS = 20_000  # SQLite VM instructions between deadline checks (~0.1 ms)
_state = threading.local()


def _deadline() -> float | None:
    return getattr(_state, "deadline", None)


def _over() -> int:
    deadline = _deadline()
    return int(deadline is not None and time.monotonic() > deadline)  # non-zero: interrupt


def install(conn: sqlite3.Connection) -> None:
    """Let the budget of the calling thread stop this (read-only) connection's statements."""
    conn.set_progress_handler(_over, _PROGRESS_STEPS)


def _error(seconds: float) -> CallBudgetError:
    return CallBudgetError(
        f"the call ran past its time budget of {seconds:g} s and was stopped",
        hint="narrow the query (fewer or rarer words, a path filter) or raise `call-budget`",
    )


def check() -> None:
    """Raise `CallBudgetError` when the calling thread's budget is spent."""
    if _over():
        raise _error(getattr(_state, "seconds", 0.0))


@contextmanager
def call_budget(seconds: float) -> Iterator[None]:
    """Run the body under a deadline `seconds` from now (nested budgets keep the outer one)."""
    if _deadline() is not None:
        yield
        return
    _state.deadline, _state.seconds = time.monotonic() + seconds, seconds
    try:
        yield
    except (sqlite3.OperationalError, KensoError) as err:
        # an interrupted statement surfaces as "interrupted", possibly wrapped by a reader
        if not isinstance(err, CallBudgetError) and _over() and _interrupted(err):
            raise _error(seconds) from err
        raise
    finally:
        _state.deadline = None


def _interrupted(err: BaseException) -> bool:
    cur: BaseException | None = err
    while cur is not None:
        if isinstance(cur, sqlite3.OperationalError) and "interrupt" in str(cur):
            return True
        cur = cur.__cause__ or cur.__context__
    return False
