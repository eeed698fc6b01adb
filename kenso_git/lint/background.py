"""A call run in a forked process while this one goes on: an ingest's lint summary beside
the writer's last work (its links, vocabulary and commit, ~0.15 s on the docs corpus), on
the core the parse workers left free (#32).

The child writes what the call returned, pickled, to an unnamed temporary file (it never
waits for the parent to read), and leaves with `os._exit`: it never touches the parent's
SQLite connection nor runs its exit handlers. A call that fails in the child, or a child
that dies, gives no result: the caller then makes it in its own process, where a bug
raises as it always did.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO
from typing import Generic
from typing import NoReturn
from typing import TypeVar

T = TypeVar("T")
# SIGKILL, the same on every POSIX system (`signal` is not imported for it): the child has
# nothing to clean up, and a SIGTERM sent before it reset its handlers would reach the
# parent's (a server's) handler instead
_SIGKILL = 9


class Forked(Generic[T]):
    """A call running in a forked child process."""

    __slots__ = ("_out", "_pid")

    def __init__(self, pid: int, out: BinaryIO) -> None:
        self._pid = pid
        self._out = out

    @classmethod
    def start(cls, call: Callable[[], T], folder: Path) -> Forked[T] | None:
        """`call` started in a forked child (its result file in `folder`); None where this
        platform cannot fork or no file can be made there (the caller runs it itself)."""
        if not hasattr(os, "fork"):
            return None
        try:
            out = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115  # closed by result/cancel
        except OSError:
            return None
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _child(call, out.fileno())
        return cls(pid, out)

    def result(self) -> T | None:
        """What the call returned (waits for it); None when it failed or the child died."""
        import pickle

        try:
            _, status = os.waitpid(self._pid, 0)
            if status != 0:
                return None
            self._out.seek(0)
            value: T = pickle.load(self._out)
            return value
        finally:
            self._out.close()

    def cancel(self) -> None:
        """Stop the child if it still runs, and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, _SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._pid, 0)
        self._out.close()


def _child(call: Callable[[], T], fd: int) -> NoReturn:
    code = 1
    try:
        import pickle
        import signal

        # as the parse workers (index/prepare.py): die with the terminal's Ctrl-C
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        data = memoryview(pickle.dumps(call(), pickle.HIGHEST_PROTOCOL))
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        code = 0
    except BaseException:  # no result: the parent runs the call itself
        pass
    os._exit(code)
