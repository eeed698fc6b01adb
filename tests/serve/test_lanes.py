"""The lanes of the HTTP server: who runs, who waits, who gives way (#27, finding 3).

These drive the real `Lanes` object from the event loop (and, for a demotion, from a worker
thread, as the budget's quantum hook does); nothing here depends on timing but the one
test of a wait's bound.
"""

from __future__ import annotations

import anyio
import anyio.to_thread
import pytest

from kenso_git.errors import BusyError
from kenso_git.serve.http import lanes as lanes_module
from kenso_git.serve.http.lanes import HEAVY
from kenso_git.serve.http.lanes import RESERVED
from kenso_git.serve.http.lanes import SHARED
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.lanes import Ticket

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]
BOUND_S = 20


async def _steps() -> None:
    for _ in range(20):  # let woken tasks run
        await anyio.sleep(0)


async def _known(lanes: Lanes, client: str) -> None:
    """One cheap call of `client`, done: a client the reserved lane knows."""
    ticket = lanes.ticket(client)
    await lanes.enter(ticket)
    lanes.leave(ticket)


class _Waiter:
    """A ticket entering in the background."""

    def __init__(self, group: anyio.abc.TaskGroup, lanes: Lanes, ticket: Ticket) -> None:
        self.ticket = ticket
        self.error: BaseException | None = None
        group.start_soon(self._enter, lanes)

    async def _enter(self, lanes: Lanes) -> None:
        try:
            await lanes.enter(self.ticket)
        except BusyError as err:
            self.error = err


async def test_calls_past_the_shared_slots_wait_in_arrival_order(anyio_backend: str) -> None:
    lanes = Lanes(shared=2, reserved=0)
    first, second = lanes.ticket("peer:a"), lanes.ticket("peer:b")
    with anyio.fail_after(BOUND_S):
        await lanes.enter(first)
        await lanes.enter(second)
        async with anyio.create_task_group() as group:
            third = _Waiter(group, lanes, lanes.ticket("peer:c"))
            fourth = _Waiter(group, lanes, lanes.ticket("peer:d"))
            await _steps()
            assert (third.ticket.lane, fourth.ticket.lane) == ("", "")
            assert lanes.state().waiting == 2
            lanes.leave(first)
            await _steps()
            assert (third.ticket.lane, fourth.ticket.lane) == (SHARED, "")
            lanes.leave(second)
    assert fourth.ticket.lane == SHARED


async def test_the_reserved_lane_admits_a_known_client_while_the_shared_slots_are_full(
    anyio_backend: str,
) -> None:
    lanes = Lanes(shared=1)
    with anyio.fail_after(BOUND_S):
        await _known(lanes, "session:normal")
        hog = lanes.ticket("session:hog")
        await lanes.enter(hog)
        async with anyio.create_task_group() as group:
            stranger = _Waiter(group, lanes, lanes.ticket("session:new"))
            await _steps()
            assert stranger.ticket.lane == ""  # no history: it waits for a shared slot
            normal = lanes.ticket("session:normal")
            await lanes.enter(normal)
            assert normal.lane == RESERVED
            second = _Waiter(group, lanes, lanes.ticket("session:normal"))
            await _steps()
            assert second.ticket.lane == ""  # one running call per client in the reserved lane
            lanes.leave(normal)
            lanes.leave(hog)
            await _steps()
            assert {stranger.ticket.lane, second.ticket.lane} == {SHARED, RESERVED}
            lanes.leave(stranger.ticket)
            lanes.leave(second.ticket)
    assert lanes.state().admitted == {SHARED: 3, RESERVED: 2, HEAVY: 0}


async def test_calls_expensive_by_their_arguments_take_turns_and_cheap_ones_pass(
    anyio_backend: str,
) -> None:
    lanes = Lanes(shared=1, reserved=0)
    with anyio.fail_after(BOUND_S):
        first = lanes.ticket("peer:1", heavy=True)
        await lanes.enter(first)
        assert first.lane == HEAVY
        async with anyio.create_task_group() as group:
            second = _Waiter(group, lanes, lanes.ticket("peer:2", heavy=True))
            await _steps()
            assert second.ticket.lane == ""
            cheap = lanes.ticket("peer:3")
            await lanes.enter(cheap)  # answered while the expensive call waits
            assert cheap.lane == SHARED
            lanes.leave(cheap)
            lanes.leave(first)
            await _steps()
            assert second.ticket.lane == HEAVY
            lanes.leave(second.ticket)


async def test_a_call_measured_as_expensive_gives_its_slot_and_its_client_the_reserved_lane(
    anyio_backend: str,
) -> None:
    lanes = Lanes(shared=1)
    with anyio.fail_after(BOUND_S):
        await _known(lanes, "session:greedy")
        busy = lanes.ticket("peer:busy", heavy=True)
        await lanes.enter(busy)  # the heavy lane is taken
        greedy = lanes.ticket("session:greedy")
        await lanes.enter(greedy)
        assert greedy.lane == SHARED
        async with anyio.create_task_group() as group:
            queued = _Waiter(group, lanes, lanes.ticket("peer:queued"))
            group.start_soon(anyio.to_thread.run_sync, greedy.demote)  # blocks its thread
            while greedy.lane != "" or queued.ticket.lane != SHARED:
                await anyio.sleep(0.001)  # the demoted call gave its shared slot back
            assert lanes.state().demoted == 1
            lanes.leave(busy)
            while greedy.lane != HEAVY:
                await anyio.sleep(0.001)  # the heavy slot is its own now: demote returns
        lanes.leave(queued.ticket)
        lanes.leave(greedy)
        hog = lanes.ticket("peer:hog")
        await lanes.enter(hog)
        async with anyio.create_task_group() as group:
            again = _Waiter(group, lanes, lanes.ticket("session:greedy"))
            await _steps()
            assert again.ticket.lane == ""  # known, but expensive: no reserved lane for it
            lanes.leave(hog)
        lanes.leave(again.ticket)
    assert greedy.served_in == HEAVY


async def test_no_more_than_a_few_demoted_calls_wait_for_the_heavy_lane(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lanes_module, "MAX_DEMOTED", 1)
    lanes = Lanes(shared=3, reserved=0)
    with anyio.fail_after(BOUND_S):
        busy, first, second = (lanes.ticket(f"peer:{n}") for n in range(3))
        heavy = lanes.ticket("peer:heavy", heavy=True)
        for ticket in (busy, first, second, heavy):
            await lanes.enter(ticket)
        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, first.demote)
            while lanes.state().waiting != 1:
                await anyio.sleep(0.001)
            with pytest.raises(BusyError, match="expensive calls already wait"):
                second.demote()  # refused at once: it would only hold a thread
            assert second.lane == ""
            lanes.leave(heavy)
        assert first.lane == HEAVY


async def test_a_call_waits_for_a_lane_no_longer_than_its_time_budget(anyio_backend: str) -> None:
    lanes = Lanes(shared=1, reserved=0, timeout=lambda: 0.05)
    with anyio.fail_after(BOUND_S):
        first = lanes.ticket("peer:a")
        await lanes.enter(first)
        late = lanes.ticket("peer:b")
        with pytest.raises(BusyError, match=r"no lane came free within 0\.05 s"):
            await lanes.enter(late)
        assert lanes.state().waiting == 0
        lanes.leave(first)
        await lanes.enter(late)  # the slot it gave up is free again
    assert late.lane == SHARED


async def test_a_heavy_call_pauses_while_cheap_calls_run_and_goes_on_when_they_are_done(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#27: a call in the heavy lane took half the CPU (and the GIL) from the cheap calls
    beside it; at its checkpoints it now waits while they run."""
    monkeypatch.setattr(lanes_module, "PACE_RUN_S", 0.0)
    monkeypatch.setattr(lanes_module, "PACE_PAUSE_S", BOUND_S * 2)  # only their end frees it
    lanes = Lanes(shared=2, reserved=0)
    heavy = lanes.ticket("peer:h", heavy=True)
    with anyio.fail_after(BOUND_S):
        await lanes.enter(heavy)
        assert heavy.lane == HEAVY
        await anyio.to_thread.run_sync(heavy.pace)  # nothing cheap runs: it goes on
        cheap = lanes.ticket("peer:c")
        await lanes.enter(cheap)
        paced = anyio.Event()

        def pace() -> None:
            heavy.pace()
            paced.set()

        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, pace)
            for _ in range(50):  # the paused thread is given every chance to go on
                await anyio.sleep(0.01)
            assert not paced.is_set()
            lanes.leave(cheap)
            await paced.wait()
        cheap_one = lanes.ticket("peer:c")
        await lanes.enter(cheap_one)
        assert cheap_one.lane == SHARED
        await anyio.to_thread.run_sync(cheap_one.pace)  # a cheap call never pauses
        lanes.leave(cheap_one)
        lanes.leave(heavy)
