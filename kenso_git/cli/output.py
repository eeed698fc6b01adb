"""Terminal styling, resolved once: --color > NO_COLOR > FORCE_COLOR > is the stream a tty."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from collections.abc import Mapping
from typing import TextIO

from kenso_git.errors import KensoError

RESET = "\033[0m"
STYLES = {
    "bold": "\033[1m",
    "dim": "\033[2m",
    "red": "\033[31m",
    "green": "\033[32m",
    "yellow": "\033[33m",
    "blue": "\033[34m",
    "bold_green": "\033[1;32m",
    "bold_blue": "\033[1;34m",
    "bold_yellow": "\033[1;33m",
}


def resolve_color(choice: str, *, isatty: bool, environ: Mapping[str, str]) -> bool:
    """--color always|never > NO_COLOR > FORCE_COLOR > auto (a tty whose TERM isn't dumb)."""
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", ""):
        return True
    return isatty and environ.get("TERM", "") != "dumb"


def use_color(choice: str, stream: TextIO) -> bool:
    """Resolve `--color always|never|auto` against the environment and the stream."""
    isatty = getattr(stream, "isatty", None)
    return resolve_color(choice, isatty=bool(isatty and isatty()), environ=os.environ)


class Style:
    """Applies ANSI styles when colour is on, and nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled or style not in STYLES:
            return text
        return f"{STYLES[style]}{text}{RESET}"

    def marks(self, text: str) -> str:
        """Render `<mark>..</mark>` highlight markers as bold (or strip them)."""
        on, off = (STYLES["bold"], RESET) if self.enabled else ("", "")
        return text.replace("<mark>", on).replace("</mark>", off)


def progress_printers() -> tuple[Callable[[int, int], None], Callable[[str], None]]:
    """A progress printer on stderr for terminals, and a warning printer."""
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty and total >= 200:
            sys.stderr.write(f"\rindexing {done}/{total}")
            sys.stderr.flush()

    def warn(message: str) -> None:
        if tty:
            sys.stderr.write("\r\033[K")
        sys.stderr.write(f"kenso-git: warning: {message}\n")

    return progress, warn


def finish_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def report_error(err: KensoError) -> None:
    """Print `kenso-git: error: <place>: <message>` and the hint on stderr."""
    where = err.location()
    prefix = f"{where}: " if where else ""
    hint = f"  hint: {err.hint}\n" if err.hint else ""
    say_on_stderr(f"kenso-git: error: {prefix}{err.message}\n{hint}")


def say_on_stderr(text: str) -> None:
    """Write `text` on stderr and flush it; nothing when stderr is missing or closed (an
    error report must never fail in turn, and leave a second traceback after its line)."""
    stream = sys.stderr
    if stream is None:  # a process started with fd 2 closed and no entry point to fix it
        return
    with contextlib.suppress(OSError, ValueError):
        stream.write(text)
        stream.flush()


def plural(count: int, noun: str) -> str:
    """`1 file`, `2 files`: the count and the noun, in agreement."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def echo_json(value: object, *, ensure_ascii: bool = True) -> None:
    """Print `value` as `json.dumps(value, indent=2)` does, written as it is made: a
    `Streamed` list (a report of 100,000 files) is never held whole (#32)."""
    import click

    from kenso_git.api.lint import chunks
    from kenso_git.api.lint import iter_json

    for piece in chunks(iter_json(value, ensure_ascii=ensure_ascii)):
        click.echo(piece, nl=False)
    click.echo("")


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_field(text: str) -> str:
    """`text` as one field of a tab-separated line: a backslash, tab, newline or carriage
    return written as `\\\\`, `\\t`, `\\n`, `\\r` (as PostgreSQL's text format does), so a
    file name holding a tab never splits its row (`cut -f1` gives the path back)."""
    return text.translate(_TSV_ESCAPES)


def shown_path(path: str) -> str:
    """`path` for a line of text: as it is, or quoted with C escapes when it holds a control
    character, a quote or a backslash (as git shows such names)."""
    if path.isprintable() and '"' not in path and "\\" not in path:
        return path
    escaped = path.encode("unicode_escape").decode("ascii").replace('"', '\\"')
    return f'"{escaped}"'
