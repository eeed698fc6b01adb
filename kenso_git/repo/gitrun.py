"""Running git as a process: `run_git`, `stream_git`, `feed_git`, and `Spawned`
(posix_spawn and two pipes). Each of them stops git at the same time limit (`time_limit`)
the same way (SIGTERM, then SIGKILL a second later) and says so with the same warning.

Every hook call runs git once, so this stays import-light: no `subprocess` (with `signal`,
`threading`, `selectors`) but for `feed_git`, and the environment scrubbed of what would
change git's answer.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from collections.abc import Generator
from collections.abc import Mapping
from collections.abc import Sequence

from kenso_git.errors import GitError
from kenso_git.repo import prestart
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import Workspace

_SIGKILL = 9  # the same on every POSIX system; `signal` is not imported for them
_SIGTERM = 15


TIMEOUT_VAR = "KENSO_GIT_TIMEOUT"  # seconds: replaces every git command's time limit
# The most `KENSO_GIT_TIMEOUT` gives (24 h): `poll()` takes milliseconds in a C int, and
# 1e9 s crashed every sync with "OverflowError: timeout is too large".
MAX_TIMEOUT_S = 24 * 60 * 60


def time_limit(default: float) -> float:
    """The seconds a git command may run: `KENSO_GIT_TIMEOUT` when set to a positive number
    (a large repository on a slow disk may need more), at most `MAX_TIMEOUT_S`, else
    `default`."""
    raw = os.environ.get(TIMEOUT_VAR, "").strip()
    try:
        value = float(raw) if raw else 0.0
    except ValueError:
        return default
    return min(value, MAX_TIMEOUT_S) if 0 < value < float("inf") else default


class GitTimeoutError(GitError):
    """A git command ran past its time limit and was stopped."""


def run_git(
    ws: Workspace, *args: str, timeout: float = 30.0, env: Mapping[str, str] | None = None
) -> str:
    """Run `git ARGS` in the work tree with a scrubbed environment (or `env`, one made from
    it); return its stdout.

    Raises:
        GitTimeoutError: git ran past `timeout` seconds (or `KENSO_GIT_TIMEOUT`'s).
        GitError: git is missing or failed.
    """
    environ = scrubbed_env() if env is None else env
    return finish(args, lambda: capture(git_argv(ws, args), environ, timeout))


class EarlyGit:
    """`git ARGS` started now and read later (`result`): git runs on another core while the
    caller works, with no thread taking turns at the interpreter lock. Its output pipe is
    made large (Linux) so git can finish writing before it is read."""

    __slots__ = ("_args", "_error", "_run")

    def __init__(self, ws: Workspace, *args: str, env: dict[str, str] | None = None) -> None:
        self._args = args
        self._run: Spawned | None = None
        self._error: OSError | None = None
        environ = scrubbed_env() if env is None else env
        try:
            self._run = Spawned(git_argv(ws, args), environ, pipe_bytes=_EARLY_PIPE)
        except OSError as exc:  # reported by `result`, as `run_git` would
            self._error = exc

    def result(self, timeout: float = 30.0) -> str:
        """git's stdout.

        Raises:
            GitError: git is missing, timed out or failed.
        """

        def collect() -> tuple[int, bytes, bytes]:
            if self._run is None:
                raise self._error or OSError("collected already")
            run, self._run = self._run, None
            return run.collect(timeout)

        return finish(self._args, collect)

    def discard(self) -> None:
        """Stop git unless read (idempotent)."""
        run, self._run = self._run, None
        if run is not None:
            run.stop()


_EARLY_PIPE = 1 << 20  # bytes an early git may write unread (Linux's default cap for a pipe)


def git_argv(ws: Workspace, args: Sequence[str]) -> list[str]:
    return ["git", "-C", str(ws.root), *args]


def finish(args: Sequence[str], run: Callable[[], tuple[int, bytes, bytes]]) -> str:
    """git's stdout from `run`, or the GitError that names what failed.

    A command that timed out is also said on stderr (a warning logged), since most callers
    go on without git's answer: the user learns which command, where, and what to do.

    Raises:
        GitTimeoutError: git ran past its time limit (it was stopped).
        GitError: git is missing or failed.
    """
    return finish_bytes(args, run).decode("utf-8", "surrogateescape")


def finish_bytes(args: Sequence[str], run: Callable[[], tuple[int, bytes, bytes]]) -> bytes:
    """`finish`, git's stdout as the bytes it wrote.

    Raises:
        GitTimeoutError: git ran past its time limit (it was stopped).
        GitError: git is missing or failed.
    """
    try:
        status, out, err = run()
    except _Overtime as exc:
        raise _timed_out(args, exc) from exc
    except (OSError, TimeoutError) as exc:
        raise GitError(f"cannot run git {_shown(args)}: {exc}", hint="is git installed?") from exc
    if status != 0:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(
            f"git {_shown(args)} failed: {detail[-1] if detail else status}",
            hint="check `git status` works here",
        )
    return out


TIMEOUT_HINT = (  # of a command that matches ignore patterns (`_IGNORE_MATCHERS`)
    "run `git status` there: when it is as slow, the usual cause is a .gitignore pattern of "
    "many `*` (like `*a*a*a*a*b`) that git matches against long names for minutes; simplify "
    f"it. When git is merely slow, give it longer with {TIMEOUT_VAR}=<seconds>"
)
_IGNORE_MATCHERS = frozenset({"status", "ls-files", "check-ignore"})
_VALUED_OPTIONS = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace"})


def _verb(args: Sequence[str]) -> str:
    """The git command `args` run (`status` of `-c core.x=y status -z`), or ''."""
    after_option = False
    for arg in args:
        if after_option:
            after_option = False
        elif arg in _VALUED_OPTIONS:
            after_option = True
        elif not arg.startswith("-"):
            return arg
    return ""


def timeout_hint(args: Sequence[str]) -> str:
    """What to do about git `args` running past its limit: the `.gitignore` advice for the
    commands that match ignore patterns, else what fits any slow command."""
    verb = _verb(args)
    if verb in _IGNORE_MATCHERS:
        return TIMEOUT_HINT
    return (
        f"`git {verb}` can take this long on a long history, a large repository or a slow or "
        f"network disk: give it longer with {TIMEOUT_VAR}=<seconds>"
    )


class _Overtime(TimeoutError):
    """What `Spawned.collect` raises when the program ran past its time limit."""

    def __init__(self, argv: Sequence[str], timeout: float) -> None:
        super().__init__(f"{argv[0]} did not finish within {timeout:g} s")
        self.argv, self.timeout = list(argv), timeout


_WARNED: set[tuple[str, str]] = set()  # (work tree, command) said timed out already


def _timed_out(args: Sequence[str], exc: _Overtime) -> GitTimeoutError:
    """The error of a git command stopped at its time limit, logged as a warning too (the
    last-resort handler prints it on stderr when logging is not configured)."""
    argv = exc.argv
    where = argv[argv.index("-C") + 1] if "-C" in argv[:-1] else os.getcwd()
    command, limit = f"git {_shown(args)}", f"{exc.timeout:g} s"
    hint = timeout_hint(args)
    if (where, command) not in _WARNED:  # once per process: a server asks again and again
        _WARNED.add((where, command))
        import logging  # only on this rare path: the hook path stays import-light

        # said here as well as raised: most callers go on without git's answer, silently
        logging.getLogger("kenso_git.git").warning(
            "kenso-git stopped `%s` in %s: it did not finish within %s\n  hint: %s",
            command,
            where,
            limit,
            hint,
        )
    message = f"{command} did not finish within {limit} in {where} and was stopped"
    return GitTimeoutError(message, hint=hint)


MAX_SHOWN_ARGS = 12  # arguments of a failed git command an error names


def _shown(args: Sequence[str]) -> str:
    """The command's arguments as an error names them: the first few (a command naming
    20,000 paths made a 2 MB message)."""
    if len(args) <= MAX_SHOWN_ARGS:
        return " ".join(args)
    return f"{' '.join(args[:MAX_SHOWN_ARGS])} ... ({len(args) - MAX_SHOWN_ARGS} more)"


def capture(argv: list[str], env: Mapping[str, str], timeout: float) -> tuple[int, bytes, bytes]:
    """Run `argv` with stdin from /dev/null; return (exit status, stdout, stderr).

    `posix_spawn` and two pipes rather than `subprocess`: every hook call runs git once, and
    importing `subprocess` (with `signal`, `threading`, `selectors`) costs more than the call.

    Raises:
        OSError: the program cannot be started.
        TimeoutError: it ran longer than `timeout` seconds (it is killed).
    """
    return Spawned(argv, env).collect(timeout)


def stream_git(
    ws: Workspace, args: Sequence[str], timeout: float = 30.0
) -> Generator[bytes, None, None]:
    """git's stdout in pieces as git writes it (its stderr is not read, its exit status not
    asked); closing the iterator early stops git.

    The time limit (`time_limit(timeout)`) bounds the whole stream, git's silences included:
    the pipe is polled with the time left before each read (one poll per 64 KiB read), so a
    git that writes nothing is stopped at the limit too.

    Raises:
        GitTimeoutError: the stream ran past its limit; git was stopped, and what it wrote
            before was yielded.
        GitError: git cannot be started.
    """
    import select

    limit = time_limit(timeout)
    argv = git_argv(ws, args)
    try:
        pid, out_r, err_r = prestart.spawn(argv, scrubbed_env())
    except OSError as exc:
        raise GitError(f"cannot run git {_shown(args)}: {exc}", hint="is git installed?") from exc
    os.close(err_r)  # nothing of stderr is read: a full pipe would only block git, so close
    deadline = time.monotonic() + limit
    poller = select.poll()  # not select(): see `Spawned.collect`
    poller.register(out_r, select.POLLIN)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(int(left * 1000) + 1):
                raise _timed_out(args, _Overtime(argv, limit))
            data = os.read(out_r, 1 << 16)
            if not data:
                return
            yield data
    finally:
        _end(pid, (out_r,))  # git has exited, or is stopped: at its limit, or not needed


def feed_git(
    ws: Workspace,
    args: Sequence[str],
    data: bytes,
    timeout: float = 30.0,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run `git ARGS` with `data` on its stdin (`cat-file --batch`) in a scrubbed environment
    (or `env`, one made from it); return its stdout.

    Raises:
        GitTimeoutError: git ran past `timeout` seconds (or `KENSO_GIT_TIMEOUT`'s).
        GitError: git is missing or failed.
    """
    import subprocess  # only here: the hook path never feeds git

    def run() -> tuple[int, bytes, bytes]:
        limit, argv = time_limit(timeout), git_argv(ws, args)
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=scrubbed_env() if env is None else env,
        )
        try:
            out, err = proc.communicate(data, timeout=limit)
        except subprocess.TimeoutExpired:
            proc.terminate()  # as `_end`: git cleans up on SIGTERM, SIGKILL a second later
            try:
                proc.wait(1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise _Overtime(argv, limit) from None
        finally:
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        return proc.returncode, out, err

    return finish_bytes(args, run)


class Spawned:
    """A program started with stdin from /dev/null and its output piped back, to `collect`
    once: a caller can start git, do other work, then read the answer."""

    __slots__ = ("_err", "_out", "argv", "pid")

    def __init__(self, argv: list[str], env: Mapping[str, str], *, pipe_bytes: int = 0) -> None:
        """Start `argv` (`pipe_bytes`: the stdout pipe's size asked for, when non-zero).

        Raises:
            OSError: the program cannot be started.
        """
        self.argv = argv
        self.pid: int | None
        self.pid, self._out, self._err = prestart.spawn(argv, env, pipe_bytes=pipe_bytes)

    @classmethod
    def adopt(cls, started: prestart.Started) -> Spawned:
        """The program `prestart.start` started, to collect here."""
        run = cls.__new__(cls)
        run.argv, run.pid, run._out, run._err = started.argv, started.pid, started.out, started.err
        return run

    def stop(self) -> None:
        """Kill the program unless collected already, and reap it (idempotent)."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        _end(pid, (self._out, self._err))

    def collect(self, timeout: float) -> tuple[int, bytes, bytes]:
        """Wait for the program; (exit status, stdout, stderr).

        Raises:
            TimeoutError: it ran longer than `timeout` seconds from now, or than
                `KENSO_GIT_TIMEOUT` says when that is set (it is killed).
        """
        import select

        timeout = time_limit(timeout)
        pid, out_r, err_r = self.pid, self._out, self._err
        assert pid is not None, "collected or discarded already"
        self.pid = None
        received: dict[int, list[bytes]] = {out_r: [], err_r: []}
        deadline = time.monotonic() + timeout
        # poll, not select: a server holding 1,024 descriptors (connections, indexes) gets
        # pipes numbered past select()'s limit
        poller = select.poll()
        for fd in (out_r, err_r):
            poller.register(fd, select.POLLIN)
        try:
            pending = {out_r, err_r}
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    _end(pid)
                    raise _Overtime(self.argv, timeout)
                for fd, _event in poller.poll(max(1, int(left * 1000))):
                    data = os.read(fd, 1 << 16)
                    if data:
                        received[fd].append(data)
                    else:
                        pending.discard(fd)
                        poller.unregister(fd)
        finally:
            os.close(out_r)
            os.close(err_r)
        _, wait_status = os.waitpid(pid, 0)
        return (
            os.waitstatus_to_exitcode(wait_status),
            b"".join(received[out_r]),
            b"".join(received[err_r]),
        )


def _end(pid: int, close: tuple[int, ...] = ()) -> None:
    """Stop the program, close the descriptors `close`, and reap it. SIGTERM first: git then
    removes its lock files (its `index.lock` when it was refreshing the index, the status
    copy's, see repo/statusindex.py) on the way out; SIGKILL if it has not gone within a
    second."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, _SIGTERM)
    for fd in close:
        with contextlib.suppress(OSError):
            os.close(fd)
    deadline = time.monotonic() + 1.0
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, _SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.0005)
