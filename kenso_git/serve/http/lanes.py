"""Which HTTP calls run now, which wait, and which must give way (#13, #27).

Every call that does work (a `tools/call` over `POST /mcp`, `GET /search`, `GET /health`)
holds a `Ticket`: the HTTP middleware (`serve.limits.CallLanes`) waits on the event loop,
holding no worker thread, until the ticket has a slot in one of three lanes:

* **shared**: `shared` slots (the CPU count, 2-4) for any call, in arrival order;
* **reserved**: one slot, for a call of a client (an MCP session, else a connection) that
  has nothing running and whose calls so far were cheap, while the shared slots are all
  taken: one client, however many calls it sends, cannot hold up another;
* **heavy**: one slot, for a call expensive by its arguments (`limits.is_heavy`), and for a
  call *measured* as expensive: past `quantum` seconds of CPU, `store.budget`'s checkpoints
  (SQLite's progress handler, RE2's windows, the Python loops) run `Ticket.demote`, which
  gives the shared or reserved slot back, keeps the client out of the reserved lane for
  `EXPENSIVE_S`, and blocks the call's thread until the heavy slot is its own; the same
  happens at once when the call compiles a regular expression of more than
  `costly_program` RE2 instructions (`store.budget.costly`). At most `MAX_DEMOTED` demoted
  calls wait so; the next one is stopped with `BusyError`.

A call in the heavy lane **gives way** while cheaper calls run or wait: at its checkpoints
it runs `PACE_RUN_S`, then pauses until the shared and reserved lanes are idle (at most
`PACE_PAUSE_S` at a time), so an expensive call takes what CPU the cheap ones leave rather
than half of it (the GIL and two cores are shared by every call of the process).

So forty hostile calls of any kind run one at a time once measured, a normal search from
another client runs beside at most the shared slots and one paced expensive call, and only a
few calls hold a worker thread and its SQLite connection at once, so their allocations
overlap little. When the lanes fall idle the freed heap goes back to the system
(`malloc_trim`, glibc): a burst of 40 calls would otherwise keep the RSS at its peak (#27).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import threading
import time
from collections import OrderedDict
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from kenso_git.errors import BusyError
from kenso_git.serve.http import ticket

SHARED_ENV = "KENSO_HTTP_LANES"
QUANTUM_ENV = "KENSO_HTTP_QUANTUM_MS"
COSTLY_ENV = "KENSO_HTTP_COSTLY_RE2"
DEFAULT_QUANTUM_S = 0.25  # CPU seconds; a normal search uses 0.02-0.08 on the docs corpus
# RE2 instructions past which a pattern's scan is expensive whatever the corpus: on the docs
# corpus (15 MB) `[a-z]{30}` (34 instructions) scans in 52 ms, `[a-q][^u-z]{20}x` (186) in
# 0.14 s, `[a-q][^u-z]{99}x` (798) runs past a 1.5 s CPU budget (its DFA outgrows its cache)
DEFAULT_COSTLY_PROGRAM = 256
EXPENSIVE_S = 60.0  # how long a client whose call was demoted may not use the reserved lane
MAX_DEMOTED = 4  # demoted calls waiting for the heavy lane (each holds a thread)
MAX_CLIENTS = 4096
TRIM_EVERY_S = 1.0
PACE_RUN_S = 0.005  # wall seconds a heavy call runs between pauses while cheap calls run
PACE_PAUSE_S = 0.05  # the longest pause at a time (the cheap calls may go on longer)
PACE_POLL_S = 0.002

SHARED = "shared"
RESERVED = "reserved"
HEAVY = "heavy"


def shared_slots() -> int:
    """`KENSO_HTTP_LANES`, else the CPU count within 2-4."""
    raw = os.environ.get(SHARED_ENV, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return min(4, max(2, os.cpu_count() or 2))


def quantum_s() -> float:
    """`KENSO_HTTP_QUANTUM_MS` in seconds, else `DEFAULT_QUANTUM_S`."""
    raw = os.environ.get(QUANTUM_ENV, "").strip()
    return int(raw) / 1000 if raw.isdigit() and int(raw) > 0 else DEFAULT_QUANTUM_S


def costly_program() -> int:
    """`KENSO_HTTP_COSTLY_RE2`, else `DEFAULT_COSTLY_PROGRAM`."""
    raw = os.environ.get(COSTLY_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_COSTLY_PROGRAM


@dataclass(slots=True)
class _Client:
    running: int = 0  # calls of this client holding a slot
    done: int = 0  # calls finished
    expensive_until: float = 0.0


@dataclass(eq=False, slots=True)
class Ticket:
    """One call's place in the lanes: its client, its weight and the lane it holds."""

    lanes: Lanes
    client: str
    heavy: bool  # expensive by its arguments
    lane: str = ""  # the slot it holds now ("" while waiting or after leaving)
    served_in: str = ""  # the last lane it held (the `x-kenso-lane` response header)
    demoted: bool = False
    wake: Callable[[], None] = field(default=lambda: None, repr=False)
    ran_since: float = 0.0  # when a heavy call last went on after a pause (monotonic)

    @property
    def quantum(self) -> float:
        return self.lanes.quantum

    @property
    def costly_program(self) -> int:
        return self.lanes.costly_program

    def pace(self) -> None:
        """Give way to cheaper calls while holding the heavy lane (the budget's checkpoints)."""
        if self.lane == HEAVY:
            self.lanes.pace(self)

    def demote(self) -> None:
        """Give the cheap slot back and wait for the heavy lane (the budget's quantum hook).

        Raises:
            BusyError: too many demoted calls wait already, or the heavy lane stayed busy.
        """
        self.lanes.demote(self)


@dataclass(slots=True)
class LaneState:
    """What /health shows of the lanes."""

    shared: int
    shared_busy: int
    reserved_busy: int
    heavy_busy: int
    waiting: int
    admitted: dict[str, int] = field(default_factory=dict)
    demoted: int = 0


CURRENT = ticket.CURRENT  # the ticket of the call running in this context


def _busy(timeout: float) -> BusyError:
    return BusyError(
        f"the server is busy: no lane came free within {timeout:g} s",
        hint="retry in a moment; expensive calls (long queries, costly regular expressions) "
        "take turns one at a time",
    )


class Lanes:
    """The three lanes of one HTTP server. Tickets are entered and left on the event loop;
    `demote` runs on the call's worker thread."""

    def __init__(
        self,
        *,
        shared: int | None = None,
        reserved: int = 1,
        quantum: float | None = None,
        timeout: Callable[[], float] = lambda: 10.0,
    ) -> None:
        self.shared = shared if shared is not None else shared_slots()
        self.reserved = reserved
        self.quantum = quantum if quantum is not None else quantum_s()
        self.costly_program = costly_program()  # a larger regex goes to the heavy lane at once
        self.timeout = timeout  # seconds a call may wait for a slot (its time budget)
        self._lock = threading.Lock()
        self._busy = {SHARED: 0, RESERVED: 0, HEAVY: 0}
        self._queue: deque[Ticket] = deque()  # waiting for shared or reserved
        self._heavy_queue: deque[Ticket] = deque()
        self._demoted_waiting = 0
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._admitted = {SHARED: 0, RESERVED: 0, HEAVY: 0}
        self._demoted = 0
        self._last_trim = 0.0

    def ticket(self, client: str, *, heavy: bool = False) -> Ticket:
        """A ticket for one call of `client`."""
        return Ticket(self, client, heavy)

    async def enter(self, ticket: Ticket) -> None:
        """Wait (on the event loop) until the ticket holds a slot.

        Raises:
            BusyError: no slot came free within the call's time budget.
        """
        loop = asyncio.get_running_loop()
        event = asyncio.Event()

        def wake() -> None:
            loop.call_soon_threadsafe(event.set)  # from the loop or a worker thread

        ticket.wake = wake
        with self._lock:
            (self._heavy_queue if ticket.heavy else self._queue).append(ticket)
            self._dispatch()
        timeout = self.timeout()
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except (TimeoutError, asyncio.CancelledError) as err:
            with self._lock:
                if not ticket.lane:  # not admitted meanwhile
                    for queue in (self._queue, self._heavy_queue):
                        if ticket in queue:
                            queue.remove(ticket)
                    self._dispatch()
                    if isinstance(err, TimeoutError):
                        raise _busy(timeout) from None
                    raise
            if isinstance(err, asyncio.CancelledError):
                self.leave(ticket)
                raise

    def demote(self, ticket: Ticket) -> None:
        """Move a call measured as expensive to the heavy lane (blocks its thread).

        Raises:
            BusyError: too many demoted calls wait already, or the heavy lane stayed busy.
        """
        with self._lock:
            if ticket.lane in ("", HEAVY):
                return
            self._release(ticket)
            ticket.demoted = True
            self._demoted += 1
            client = self._client(ticket.client)
            client.expensive_until = time.monotonic() + EXPENSIVE_S
            if self._demoted_waiting >= MAX_DEMOTED:
                self._dispatch()
                raise BusyError(
                    "the server is busy: this call proved expensive and "
                    f"{MAX_DEMOTED} expensive calls already wait their turn",
                    hint="retry in a moment, or narrow the query",
                )
            done = threading.Event()
            ticket.wake = done.set
            self._heavy_queue.append(ticket)
            self._demoted_waiting += 1
            self._dispatch()
        timeout = self.timeout()
        got = done.wait(timeout)
        with self._lock:
            self._demoted_waiting -= 1
            if not got and not ticket.lane:
                self._heavy_queue.remove(ticket)
                raise _busy(timeout)

    def cheap_busy(self) -> bool:
        """Calls run or wait in the shared or reserved lane (read without the lock)."""
        return bool(self._busy[SHARED] or self._busy[RESERVED] or self._queue)

    def pace(self, ticket: Ticket) -> None:
        """Pause the heavy call of `ticket` (on its thread) while cheaper calls run or wait:
        past `PACE_RUN_S` of running, until they are done or `PACE_PAUSE_S` has passed."""
        now = time.monotonic()
        if now - ticket.ran_since < PACE_RUN_S or not self.cheap_busy():
            return
        until = now + PACE_PAUSE_S
        while self.cheap_busy() and time.monotonic() < until:
            time.sleep(PACE_POLL_S)
        ticket.ran_since = time.monotonic()

    def leave(self, ticket: Ticket) -> None:
        """Give the ticket's slot back (and the heap, once the lanes are idle)."""
        with self._lock:
            if ticket.lane:
                self._release(ticket)
            self._client(ticket.client).done += 1
            self._dispatch()
            idle = not any(self._busy.values()) and not self._queue and not self._heavy_queue
        if idle:
            self._trim()

    # -- under the lock ------------------------------------------------------------------

    def _release(self, ticket: Ticket) -> None:
        self._busy[ticket.lane] -= 1
        self._client(ticket.client).running -= 1
        ticket.lane = ""

    def _admit(self, ticket: Ticket, lane: str) -> None:
        self._busy[lane] += 1
        self._admitted[lane] += 1
        self._client(ticket.client).running += 1
        ticket.lane = ticket.served_in = lane
        ticket.wake()

    def _dispatch(self) -> None:
        """Give every free slot to the ticket it is owed."""
        if not self._busy[HEAVY] and self._heavy_queue:
            self._admit(self._heavy_queue.popleft(), HEAVY)
        while self._busy[SHARED] < self.shared and self._queue:
            self._admit(self._queue.popleft(), SHARED)
        if self._busy[RESERVED] < self.reserved:
            now = time.monotonic()
            for ticket in self._queue:
                client = self._client(ticket.client)
                if client.running == 0 and client.done > 0 and client.expensive_until <= now:
                    self._queue.remove(ticket)
                    self._admit(ticket, RESERVED)
                    break

    def _client(self, key: str) -> _Client:
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = _Client()
            while len(self._clients) > MAX_CLIENTS:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(key)
        return client

    def state(self) -> LaneState:
        """The lanes now, for `GET /health`."""
        with self._lock:
            return LaneState(
                shared=self.shared,
                shared_busy=self._busy[SHARED],
                reserved_busy=self._busy[RESERVED],
                heavy_busy=self._busy[HEAVY],
                waiting=len(self._queue) + len(self._heavy_queue),
                admitted=dict(self._admitted),
                demoted=self._demoted,
            )

    def _trim(self) -> None:
        now = time.monotonic()
        if now - self._last_trim < TRIM_EVERY_S:
            return
        self._last_trim = now
        release_heap()


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to hand back this way
        return None
    return trim


_TRIM = _malloc_trim()


def release_heap() -> None:
    """Hand the freed heap of every malloc arena back to the system (glibc only)."""
    if _TRIM is not None:
        _TRIM(0)
