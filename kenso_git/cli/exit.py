"""The one place that turns a command's outcome or error into a message and an exit code.

Click-free, so the entry's fast path and the click CLI share it: the click CLI passes in
its own exception classes instead of this module importing click.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import NoReturn
from typing import Protocol
from typing import cast

from kenso_git import __version__
from kenso_git.cli.output import report_error
from kenso_git.cli.output import say_on_stderr
from kenso_git.errors import ExitCode
from kenso_git.errors import KensoError
from kenso_git.errors import UsageError


class ShownError(Protocol):
    """A usage error that prints itself (click's `ClickException`)."""

    exit_code: int

    def show(self) -> None: ...


def run_and_exit(
    run: Callable[[], object],
    *,
    interrupts: tuple[type[BaseException], ...] = (),
    usage_errors: tuple[type[BaseException], ...] = (),
) -> NoReturn:
    """Run a command and exit with its code: an int it returns, else 0; for errors, the
    code of a `KensoError`, 130 on interrupt (Ctrl-C or one of `interrupts`), 2 for one of
    `usage_errors` asking for it (else its own code), 0 when stdout was closed early."""
    _exit_cleanly_on_sigterm()
    try:
        code = run()
    except KensoError as err:
        report_error(err)
        raise SystemExit(int(err.exit_code)) from None
    except interrupts:
        _interrupted()
    except usage_errors as err:
        shown = cast(ShownError, err)  # click.ClickException, by the caller's contract
        shown.show()
        raise SystemExit(int(ExitCode.USAGE) if shown.exit_code == 2 else shown.exit_code) from None
    except KeyboardInterrupt:
        _interrupted()
    except PermissionError as err:
        # A file the user may not touch that no check named first: one line, not a traceback.
        where = err.filename or "a file kenso-git needed"
        report_error(
            KensoError(
                f"permission denied: {where}",
                hint="run kenso-git as a user who may read (and, for a sync, write) it",
            )
        )
        raise SystemExit(int(ExitCode.FAILURE)) from None
    except BrokenPipeError:
        # stdout closed early (`kenso-git search x | head`): not an error worth a traceback.
        _discard_stdout()
        raise SystemExit(int(ExitCode.OK)) from None
    except FileNotFoundError as err:
        if _cwd_gone():
            _report_cwd_gone()
        _crashed(err)
    except Exception as err:  # the top-level handler (STYLE §7): a bug is one line
        _crashed(err)
    raise SystemExit(code if isinstance(code, int) else int(ExitCode.OK))


def _crashed(err: Exception) -> NoReturn:
    """An error no check expected (a bug): one line naming it and where its traceback was
    written, for the report, then exit 1. The traceback goes to a file of its own in the
    system's temporary folder; if that cannot be written, it is printed instead."""
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    what = f"{type(err).__name__}: {err}".splitlines()[0][:300] if str(err) else type(err).__name__
    try:
        fd, where = tempfile.mkstemp(prefix="kenso-git-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as log:
            log.write(f"kenso-git {__version__}, {' '.join(sys.argv)}\n\n{text}")
    except OSError:
        say_on_stderr(text)
        where = ""
    hint = (
        f"the traceback is in {where}: please report it with the command you ran"
        if where
        else "the traceback is above: please report it with the command you ran"
    )
    report_error(KensoError(f"internal error: {what}", hint=hint))
    raise SystemExit(int(ExitCode.FAILURE)) from None


def _exit_cleanly_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C: the write transaction rolls back, the private build file
    is removed, and the command says why it stopped (exit 143)."""
    import signal

    def terminated(_signum: int, _frame: object) -> NoReturn:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
        say_on_stderr("kenso-git: terminated\n")
        raise SystemExit(128 + signal.SIGTERM)

    with contextlib.suppress(ValueError):  # not the main thread (a test calling main())
        signal.signal(signal.SIGTERM, terminated)


def _interrupted() -> NoReturn:
    say_on_stderr("kenso-git: interrupted\n")
    raise SystemExit(int(ExitCode.INTERRUPTED)) from None


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so flushing what is left of it at exit raises no more."""
    stream = sys.stdout
    if stream is None:  # the process never had one: nothing is left to flush
        return
    with contextlib.suppress(OSError, ValueError):  # a stream without a fileno (a capture)
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def _cwd_gone() -> bool:
    """Whether the current folder was deleted (or moved away) after the command started in
    it: every relative path, and git's discovery of the repository, then fail."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _report_cwd_gone() -> NoReturn:
    report_error(
        UsageError(
            "the current folder no longer exists",
            hint="cd to your repository and run the command again",
        )
    )
    raise SystemExit(int(ExitCode.USAGE)) from None
