"""A per-call budget for reads: wall seconds, CPU seconds, and the point where a call that
has proved expensive must give way (#13, #27).

The server runs each tool call on one thread under `call_budget`. The reader connection's
progress handler (every few thousand SQLite VM steps) and `check()` (between the search's
Python and RE2 steps) stop the call with `CallBudgetError`, naming the setting, once the
wall deadline has passed or the thread's CPU time (`time.thread_time`, SQLite's and RE2's
included) is over the CPU budget. The same checkpoints run `on_quantum` once, when the call
has used more CPU than its quantum: the HTTP lanes use it to move a call measured as
expensive into the lane of one (it may block there); and `pace` at every checkpoint, where
a call of that lane pauses while cheap calls run (it may sleep); and at once for a regular
expression known to be expensive by its size (`costly`). CPU spent under `exempt()` (a cache
every later call shares, built once per index generation) counts for the quantum but not
against the CPU budget. Work under `aside()` (the index of another revision, kept for the
next calls at that commit) is charged to neither budget: the call's deadline moves on by
the time it took, and the query that follows has its whole budget. Writes are never
interrupted: the handler is installed on read-only connections only; but a call waits for
the index's write lock (`index.lock`, `api.writes`) no longer than its budget has left
(`wait_left`), and for work it would answer after (another thread's freshness check, a
writer syncing a large change) no longer than it can while keeping `ANSWER_SHARE` of its
budget for an answer flagged stale (`wait_to_answer`). That includes the call's own freshness
check, which no checkpoint can stop while git runs or a walk lists a folder: it runs on the
check thread of its knowledge base (`api/checker.py`), outside the call's budgets, and goes
on after the call answered without it.

Importing a module is the interpreter's work, for this call and every later one, not the
query's: the first budget a process enters puts `_ImportMeter` first on `sys.meta_path`, and
what a call's thread spends loading a module (compiling it when no bytecode could be read,
running its body, loading an extension) is `uncounted`: charged to neither budget and unseen
by the lanes.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from importlib.machinery import ExtensionFileLoader
from importlib.machinery import ModuleSpec
from importlib.machinery import SourceFileLoader
from importlib.machinery import SourcelessFileLoader
from types import ModuleType

from kenso_git.errors import CallBudgetError
from kenso_git.errors import KensoError

_PROGRESS_STEPS = 20_000  # SQLite VM instructions between checks (~0.1 ms)
# A call that gives up waiting for another thread's work (a freshness check, a writer) and
# answers from the index as it is keeps this share of its budget for that answer.
ANSWER_SHARE = 0.25
# Work a call hands to another thread (its freshness check, `api/checker.py`) ends its waits
# this share of the budget before the call stops waiting for it: time to return what it found.
HANDOVER_SHARE = 0.25
_state = threading.local()


class _Call:
    """The budget of the call running on this thread."""

    __slots__ = (
        "aside_since",
        "costly_above",
        "cpu_limit",
        "cpu_start",
        "deadline",
        "exempt",
        "exempt_since",
        "on_quantum",
        "pace",
        "quantum",
        "seconds",
        "stopped",
        "stopped_by",
        "uncounted",
    )

    def __init__(
        self,
        seconds: float,
        cpu_limit: float | None,
        quantum: float | None,
        on_quantum: Callable[[], None] | None,
        pace: Callable[[], None] | None = None,
        costly_above: int | None = None,
    ) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.cpu_limit = cpu_limit
        self.cpu_start = time.thread_time()
        self.quantum = quantum
        self.on_quantum = on_quantum
        self.pace = pace
        self.costly_above = costly_above  # RE2 instructions of a pattern known to be expensive
        self.exempt = 0.0  # CPU seconds spent under exempt(), not held against cpu_limit
        self.exempt_since: float | None = None
        self.aside_since: float | None = None  # monotonic start of the work under aside()
        self.stopped_by = ""  # "time" or "cpu" once a check failed
        self.stopped: KensoError | None = None  # what stopped it
        self.uncounted = False  # in work charged to no budget (`uncounted`)

    def give_way(self) -> None:
        """Run the quantum hook, once per call (it may block until the call may go on)."""
        hook, self.on_quantum = self.on_quantum, None
        if hook is not None:
            hook()

    def within(self) -> bool:
        """False once the call is past its deadline or its CPU budget; may run the quantum
        hook first (which may block until the call may go on)."""
        if self.stopped is not None:
            return False
        if self.pace is not None:
            self.pace()  # may sleep while cheaper calls run: the deadline is looked at below
        if self._late():
            return False
        cpu = time.thread_time() - self.cpu_start
        if self.on_quantum is not None and self.quantum is not None and cpu > self.quantum:
            try:
                self.give_way()  # may wait for a lane: the deadline is looked at again below
            except KensoError as err:  # inside SQLite's progress handler: no raising there
                self.stopped = err
                return False
            if self._late():
                return False
        if self.cpu_limit is None or self.exempt_since is not None:
            return True
        if cpu - self.exempt > self.cpu_limit:
            self.stopped_by = "cpu"
            return False
        return True

    def _late(self) -> bool:
        """Whether the call is past its deadline (never while it works aside)."""
        if self.aside_since is None and time.monotonic() > self.deadline:
            self.stopped_by = "time"
            return True
        return False


def _current() -> _Call | None:
    call: _Call | None = getattr(_state, "call", None)
    return call


def _over() -> int:
    call = _current()
    return int(call is not None and not call.within())  # non-zero: interrupt


def install(conn: sqlite3.Connection) -> None:
    """Let the budget of the calling thread stop this (read-only) connection's statements."""
    conn.set_progress_handler(_over, _PROGRESS_STEPS)


def _error(call: _Call) -> KensoError:
    if call.stopped is not None:
        return call.stopped
    if call.stopped_by == "cpu" and call.cpu_limit is not None:
        return CallBudgetError(
            f"the call used its CPU budget of {call.cpu_limit:g} s and was stopped",
            hint="narrow the query (fewer or rarer words, a simpler pattern, a path filter) "
            "or raise `call-cpu-budget`",
        )
    return CallBudgetError(
        f"the call ran past its time budget of {call.seconds:g} s and was stopped",
        hint="narrow the query (fewer or rarer words, a path filter) or raise `call-budget`",
    )


def check() -> None:
    """Raise `CallBudgetError` when the calling thread's budget is spent (and give way, once,
    when the call has used its quantum)."""
    call = _current()
    if call is not None and not call.within():
        raise _error(call)


def costly(instructions: int) -> None:
    """The call is about to scan with a regular expression of `instructions` RE2
    instructions: past the call's `costly_above`, it is known to be expensive before it has
    used its quantum, and the quantum hook runs now (it may block until the call may go on).

    Raises:
        KensoError: what the hook raised (a lane that stayed busy).
    """
    call = _current()
    if call is not None and call.costly_above is not None and instructions > call.costly_above:
        call.give_way()


def wait_left(wait: float | None) -> float | None:
    """`wait` seconds (None: no limit) cut to the wall time the call on this thread has
    left (0 once it is spent): a tool call never waits past its budget for a lock. `wait`
    as it is outside a call (cut to `answer_by`), and under `aside()` (its time is not the
    call's)."""
    call = _current()
    if call is None or call.aside_since is not None:
        return _handed(wait)
    left = max(0.0, call.deadline - time.monotonic())
    return left if wait is None else min(wait, left)


def wait_to_answer(wait: float | None) -> float | None:
    """`wait_left`, less the share of the call's budget (`ANSWER_SHARE`) kept for the
    answer that follows when the wait runs out: the index as it is, flagged stale
    (0 once only that share is left). `wait` as it is outside a call (cut to `answer_by`),
    and under `aside()`."""
    call = _current()
    if call is None or call.aside_since is not None:
        return _handed(wait)
    left = max(0.0, call.deadline - time.monotonic() - ANSWER_SHARE * call.seconds)
    return left if wait is None else min(wait, left)


def _handed(wait: float | None) -> float | None:
    """`wait` cut to the deadline of the work handed over to this thread (`answer_by`)."""
    until: float | None = getattr(_state, "until", None)
    if until is None:
        return wait
    left = max(0.0, until - time.monotonic())
    return left if wait is None else min(wait, left)


def handover_deadline() -> float | None:
    """When work the call on this thread hands to another thread (its freshness check)
    ends its waits (`answer_by`): `HANDOVER_SHARE` of the budget before the call stops
    waiting for it (`wait_to_answer`); None outside a call, and under `aside()`."""
    call = _current()
    if call is None or call.aside_since is not None:
        return None
    return call.deadline - (ANSWER_SHARE + HANDOVER_SHARE) * call.seconds


@contextmanager
def answer_by(deadline: float | None) -> Iterator[None]:
    """Run the body, on a thread with no call of its own, as work a call handed over:
    `wait_left` and `wait_to_answer` end by `deadline` (monotonic; None: no limit), and
    nothing else of the call's budget applies (no statement is interrupted)."""
    if deadline is None or _current() is not None:
        yield
        return
    _state.until = deadline
    try:
        yield
    finally:
        _state.until = None


def budget_stopped(err: BaseException) -> bool:
    """Whether `err` is how its budget stopped the call on this thread (False outside a
    call): the budget's own error, or a statement it interrupted, as SQLite raised it or
    wrapped by a reader (what `call_budget` turns into `CallBudgetError` at its end)."""
    call = _current()
    if call is None or (call.stopped is None and call.stopped_by == ""):
        return False
    return err is call.stopped or isinstance(err, CallBudgetError) or _interrupted(err)


def cpu_used() -> float:
    """CPU seconds the call on this thread has used so far (0 outside a call)."""
    call = _current()
    return 0.0 if call is None else time.thread_time() - call.cpu_start


@contextmanager
def exempt() -> Iterator[None]:
    """CPU spent in the body does not count against the CPU budget (a shared cache)."""
    call = _current()
    if call is None or call.exempt_since is not None:
        yield
        return
    call.exempt_since = time.thread_time()
    try:
        yield
    finally:
        call.exempt += time.thread_time() - call.exempt_since
        call.exempt_since = None


@contextmanager
def aside() -> Iterator[None]:
    """Work that is not the call's query (the index of another revision, built once and
    kept for the next calls at that commit): neither its CPU nor its wall time is held
    against the call's budgets, and the call's deadline moves on by the time it took. The
    HTTP lanes still see its CPU (a call that built an index is an expensive one)."""
    call = _current()
    if call is None or call.aside_since is not None:
        yield
        return
    call.aside_since = time.monotonic()
    try:
        with exempt():
            yield
    finally:
        call.deadline += time.monotonic() - call.aside_since
        call.aside_since = None


@contextmanager
def uncounted() -> Iterator[None]:
    """Work of the interpreter's, not the call's (importing a module, for this call and every
    later one): neither its CPU nor its wall time counts, for the budgets or the quantum; the
    call goes on as if it had not done it."""
    call = _current()
    if call is None or call.uncounted:
        yield
        return
    call.uncounted = True
    cpu, wall = time.thread_time(), time.monotonic()
    try:
        yield
    finally:
        call.uncounted = False
        spent, waited = time.thread_time() - cpu, time.monotonic() - wall
        call.cpu_start += spent
        call.deadline += waited
        # an import inside exempt() or aside() is taken out of those once, not twice
        if call.exempt_since is not None:
            call.exempt_since += spent
        if call.aside_since is not None:
            call.aside_since += waited


class _Source(SourceFileLoader):
    def exec_module(self, module: ModuleType) -> None:  # compiles it, when no bytecode is read
        with uncounted():
            super().exec_module(module)


class _Sourceless(SourcelessFileLoader):
    def exec_module(self, module: ModuleType) -> None:
        with uncounted():
            super().exec_module(module)


class _Extension(ExtensionFileLoader):
    def create_module(self, spec: ModuleSpec) -> ModuleType:
        with uncounted():
            return super().create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with uncounted():
            super().exec_module(module)


_METERED: dict[type, type[_Source | _Sourceless | _Extension]] = {
    SourceFileLoader: _Source,
    SourcelessFileLoader: _Sourceless,
    ExtensionFileLoader: _Extension,
}


class _ImportMeter:
    """A finder first on `sys.meta_path`: on a thread running a call, the module is found by
    the finders after it, and loaded by a loader of the same kind whose work is `uncounted`.
    Elsewhere it finds nothing and the import goes on as it would without it."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if _current() is None:
            return None
        finders = list(sys.meta_path)
        after = finders[finders.index(self) + 1 :] if self in finders else finders
        with uncounted():
            for finder in after:
                find = getattr(finder, "find_spec", None)
                if find is None:  # a finder of the old protocol: importlib asks each in turn
                    return None
                spec: ModuleSpec | None = find(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        loader = spec.loader
        metered = _METERED.get(type(loader))
        if metered is not None and isinstance(
            loader, (SourceFileLoader, SourcelessFileLoader, ExtensionFileLoader)
        ):
            spec.loader = metered(loader.name, loader.path)
        return spec


_METER = _ImportMeter()
_metering = threading.Lock()


def _meter_imports() -> None:
    """Put `_METER` first on `sys.meta_path`, once a process."""
    if _METER in sys.meta_path:
        return
    with _metering:
        if _METER not in sys.meta_path:
            sys.meta_path.insert(0, _METER)


@contextmanager
def call_budget(
    seconds: float,
    *,
    cpu: float | None = None,
    quantum: float | None = None,
    on_quantum: Callable[[], None] | None = None,
    pace: Callable[[], None] | None = None,
    costly_above: int | None = None,
) -> Iterator[None]:
    """Run the body under a deadline `seconds` from now and, with `cpu`, a limit on the
    thread's CPU seconds; `on_quantum` runs once past `quantum` CPU seconds, `pace` at every
    checkpoint, and at once for a regular expression of more than `costly_above` RE2
    instructions (`costly`). Nested budgets keep the outer one.

    Raises:
        CallBudgetError: the body was stopped by the budget.
        KensoError: what `on_quantum` raised (a lane that stayed busy).
    """
    if _current() is not None:
        yield
        return
    _meter_imports()
    call = _state.call = _Call(seconds, cpu, quantum, on_quantum, pace, costly_above)
    try:
        yield
    except (sqlite3.OperationalError, KensoError) as err:
        # an interrupted statement surfaces as "interrupted", possibly wrapped by a reader
        stopped = call.stopped is not None or call.stopped_by != ""
        if stopped and err is not call.stopped and _interrupted(err):
            raise _error(call) from err
        raise
    finally:
        _state.call = None


def _interrupted(err: BaseException) -> bool:
    cur: BaseException | None = err
    while cur is not None:
        if isinstance(cur, sqlite3.OperationalError) and "interrupt" in str(cur):
            return True
        cur = cur.__cause__ or cur.__context__
    return False
