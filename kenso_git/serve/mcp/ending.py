"""How a server ends on a signal: SIGTERM, SIGINT and SIGHUP end it at once, cleanly.

A server started from a terminal gets SIGHUP when the terminal closes. Its default action
killed the process on the spot: no cleanup ran, and the copies of the index it made for
calls with `ref` (`/tmp/kenso-ref-<pid>-*` in a read-only checkout, `.kenso/revisions/`
otherwise) stayed until a later server start removed them. `end_on_hangup` sends it on as
SIGTERM, which each transport handles (the CLI's handler; uvicorn's for HTTP).

The SDK's stdio server runs on an event loop: a handler raising SystemExit or
KeyboardInterrupt lands in whatever task runs then, and asyncio's own SIGINT handling
cancels the server's task, which the SDK's transport could end with an error of its own
(a line it was forwarding found the session closed), exit 1. `serve_until_signal` catches
the three on the loop, cancels the server, and names the signal, which the caller raises
again once the loop is done: the process then ends as the handler in force says (143, 130).

A signal sent to the process may be delivered to any of its threads. Python runs its handler
in the main thread, at its next step: one blocked reading stdin (the SDK-free loop) took
that step only when the client's next line came, so a signal could be left waiting there
for ever. `stdin_lines` waits for stdin or a signal's wake-up byte (`signal.set_wakeup_fd`).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterator

ENDING = ("SIGINT", "SIGTERM", "SIGHUP")  # those a platform lacks are left out


def end_on_hangup() -> None:
    """Handle SIGHUP as SIGTERM from now on; not where SIGHUP is ignored (`nohup`), nor on a
    platform without it, nor off the main thread (where no handler can be set)."""
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is None or signal.getsignal(hangup) is signal.SIG_IGN:
        return
    try:
        signal.signal(hangup, _as_terminate)
    except ValueError:  # not the main thread: a test serving in-process
        return


def _as_terminate(_signum: int, _frame: object) -> None:
    signal.raise_signal(signal.SIGTERM)


def _catchable() -> list[signal.Signals]:
    """The ending signals this process may catch on its loop: on POSIX (asyncio takes no
    signal handlers elsewhere), on the main thread, not ignored."""
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return []
    found = (getattr(signal, name, None) for name in ENDING)
    return [s for s in found if s is not None and signal.getsignal(s) is not signal.SIG_IGN]


async def serve_until_signal(serve: Callable[[], Awaitable[None]]) -> signal.Signals | None:
    """Run `serve()` until it returns, or until SIGINT, SIGTERM or SIGHUP arrives: then it
    is cancelled, and the signal is returned (None when `serve()` returned by itself). The
    handlers in force before are put back (asyncio leaves the default ones behind)."""
    import anyio
    from anyio.abc import TaskStatus

    caught = _catchable()
    before = {s: signal.getsignal(s) for s in caught}
    ended_by: list[signal.Signals] = []

    async def watch(*, task_status: TaskStatus[None]) -> None:
        with anyio.open_signal_receiver(*caught) as received:
            task_status.started()
            async for signum in received:
                ended_by.append(signal.Signals(signum))
                tasks.cancel_scope.cancel()
                return

    try:
        async with anyio.create_task_group() as tasks:
            if caught:
                await tasks.start(watch)
            await serve()
            tasks.cancel_scope.cancel()  # served to the end: stop watching
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    return ended_by[0] if ended_by else None


@contextlib.contextmanager
def stdin_lines() -> Iterator[Iterator[bytes]]:
    """The lines of the process's stdin (`lines_of`), read so that a signal wakes the read
    whichever thread it was delivered to: its handler then runs at once."""
    fd = stdin_fd()
    if fd is None:
        yield iter(sys.stdin.buffer)
        return
    with _signal_wakeup() as wake:
        yield lines_of(fd, wake)


def stdin_fd() -> int | None:
    """stdin's file descriptor; None when `sys.stdin` is an in-memory file (a test's)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


@contextlib.contextmanager
def _signal_wakeup() -> Iterator[int | None]:
    """The read end of a pipe each signal writes a byte to; None where that cannot be set
    (off POSIX, where select takes no pipe, or off the main thread)."""
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        yield None
        return
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(write_end, False)
    before = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    try:
        yield read_end
    finally:
        signal.set_wakeup_fd(before)
        os.close(read_end)
        os.close(write_end)


def lines_of(fd: int, wake: int | None = None) -> Iterator[bytes]:
    """The lines read from `fd` until its end, each with its line break (the last one may
    have none), as iterating a binary file gives them. With `wake`, each read waits for
    `fd` or `wake` first (a byte there: a signal's handler runs as this returns)."""
    pending = bytearray()
    while True:
        if wake is not None:
            ready = select.select([fd, wake], [], [])[0]
            if wake in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake, 512)
                if fd not in ready:
                    continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        head, end = 0, chunk.find(b"\n")
        if end >= 0:
            end += len(pending)
        pending += chunk
        while end >= 0:
            yield bytes(pending[head : end + 1])
            head, end = end + 1, pending.find(b"\n", end + 1)
        del pending[:head]
    if pending:
        yield bytes(pending)
