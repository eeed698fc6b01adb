"""One handler maps a command's outcome and errors to messages and exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import click
import pytest

from kenso_git.cli.exit import run_and_exit
from kenso_git.errors import NoIndexError
from kenso_git.errors import UsageError


def _exit(run: Callable[[], object], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        run_and_exit(
            run, interrupts=(click.exceptions.Abort,), usage_errors=(click.ClickException,)
        )
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def _raise(error: BaseException) -> Callable[[], object]:
    def run() -> object:
        raise error

    return run


def test_the_returned_int_is_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit(lambda: 1, capsys) == (1, "", "")
    assert _exit(lambda: None, capsys) == (0, "", "")
    assert _exit(lambda: "text", capsys) == (0, "", "")


def test_a_kenso_error_prints_message_and_hint_and_exits_with_its_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    error = NoIndexError("no search index here", hint="run `kenso-git ingest` once")
    assert _exit(_raise(error), capsys) == (
        3,
        "",
        "kenso-git: error: no search index here\n  hint: run `kenso-git ingest` once\n",
    )
    assert _exit(_raise(UsageError("bad flag")), capsys)[0] == 2


@pytest.mark.parametrize("error", [KeyboardInterrupt(), click.exceptions.Abort()])
def test_an_interrupt_exits_130(error: BaseException, capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit(_raise(error), capsys) == (130, "", "kenso-git: interrupted\n")


def test_a_click_usage_error_shows_itself_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _exit(_raise(click.UsageError("No such option '--bogus'.")), capsys)
    assert (code, out) == (2, "")
    assert err.endswith("Error: No such option '--bogus'.\n")


def test_click_errors_are_usage_errors_only_when_passed_in(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the fast path passes no click classes: a click error there is a bug, said in one line
    with pytest.raises(SystemExit) as exc:
        run_and_exit(_raise(click.UsageError("x")))
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("kenso-git: error: internal error: UsageError: x\n")
    os.unlink(err.split("the traceback is in ", 1)[1].split(":", 1)[0])


def test_a_closed_stdout_exits_0_without_a_traceback() -> None:
    code = (
        "from kenso_git.cli.exit import run_and_exit\n"
        "def run():\n    raise BrokenPipeError\n"
        "run_and_exit(run)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_an_unexpected_error_is_one_line_naming_where_its_traceback_was_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _exit(_raise(ZeroDivisionError("division by zero")), capsys)
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == "kenso-git: error: internal error: ZeroDivisionError: division by zero"
    assert "Traceback" not in err
    where = lines[1].split("the traceback is in ", 1)[1].split(":", 1)[0]
    try:
        with open(where, encoding="utf-8") as log:
            written = log.read()
        assert "Traceback (most recent call last)" in written
        assert "ZeroDivisionError: division by zero" in written
    finally:
        os.unlink(where)
