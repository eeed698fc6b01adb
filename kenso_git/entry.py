"""The `kenso-git` executable's entry point.

`kenso-git hook NAME ARGS...` runs on every checkout, merge and commit, `kenso-git sync`
after edits, and `kenso-git search` whenever an agent or a person looks something up, so
their plain forms skip click (~25 ms to import) and go straight to the library. Every other
command, and any other form of these three (`--help`, `--limit=5`, a typo), goes through
the click CLI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from collections.abc import Sequence
from typing import NamedTuple
from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> None:
    """Run `kenso-git` with `argv` (default: the process's arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-"):
        from kenso_git.githooks.runner import hook_main

        hook_main(args[1], args[2:])
        _exit_now()
    if args and args[0] == "sync":
        sync = parse_sync_args(args[1:])
        if sync is not None:
            _run_fast(lambda: _plain_sync(sync))
    if args and args[0] == "search" and not os.environ.get("KENSO_LOG_LEVEL"):
        search = parse_search_args(args[1:])
        if search is not None:
            _run_fast(lambda: _plain_search(search))
    from kenso_git.cli.main import main as cli_main

    cli_main(args)


def _exit_now() -> None:
    """Exit 0 at once. A hook's work is committed and its connections closed by now; the
    interpreter's teardown (freeing every module) would add ~10 ms to each git command."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)


def _run_fast(produce: Callable[[], str | None]) -> NoReturn:
    """Run a fast-path command: print its text, map errors to exit codes as the CLI does."""
    from kenso_git.errors import KensoError

    try:
        text = produce()
        if text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except KensoError as err:
        from kenso_git.cli.output import report_error

        report_error(err)
        raise SystemExit(int(err.exit_code)) from None
    except KeyboardInterrupt:
        sys.stderr.write("kenso-git: interrupted\n")
        raise SystemExit(130) from None
    except BrokenPipeError:  # `kenso-git search x | head`: not worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def _plain_sync(options: SyncArgs) -> str | None:
    from kenso_git.cli.plaintext import sync_text

    return sync_text(as_json=options.as_json, quiet=options.quiet, db_path=options.db_path)


def _plain_search(options: SearchArgs) -> str:
    from pathlib import Path

    from kenso_git.cli.plaintext import search_text
    from kenso_git.kb import KnowledgeBase

    kb = KnowledgeBase.open(Path.cwd(), db=options.db_path)
    return search_text(
        kb,
        options.query,
        limit=options.limit,
        category=options.category,
        as_json=options.as_json,
        color=options.color,
    )


class SyncArgs(NamedTuple):
    as_json: bool = False
    quiet: bool = False
    db_path: str | None = None


class SearchArgs(NamedTuple):
    query: str
    limit: int = 5
    category: str | None = None
    as_json: bool = False
    db_path: str | None = None
    color: str = "auto"


def parse_sync_args(args: list[str]) -> SyncArgs | None:
    """The options of a plain `sync` command line, or None to let click handle it."""
    parsed = _plain_options(
        args, {"-q": "quiet", "--quiet": "quiet", "--json": "as_json"}, {"--db": ("db_path", str)}
    )
    if parsed is None or parsed[1]:
        return None
    return SyncArgs(**parsed[0])  # type: ignore[arg-type]


def parse_search_args(args: list[str]) -> SearchArgs | None:
    """The options of a plain `search` command line, or None to let click handle it."""
    parsed = _plain_options(args, {"--json": "as_json"}, _SEARCH_VALUED)
    if parsed is None or len(parsed[1]) != 1:
        return None
    return SearchArgs(parsed[1][0], **parsed[0])  # type: ignore[arg-type]


def _count(value: str) -> int | None:
    return int(value) if value.isdigit() else None


def _color(value: str) -> str | None:
    return value if value in ("auto", "always", "never") else None


# An option that takes a value: the field it sets, and its value (None: not valid).
Valued = dict[str, tuple[str, Callable[[str], object]]]
_SEARCH_VALUED: Valued = {
    "--limit": ("limit", _count),
    "-n": ("limit", _count),
    "--category": ("category", str),
    "-c": ("category", str),
    "--db": ("db_path", str),
    "--color": ("color", _color),
}


def _plain_options(
    args: list[str], flags: dict[str, str], valued: Valued
) -> tuple[dict[str, object], list[str]] | None:
    """The `flags`, `valued` options with their values, and the words of a plain command
    line, by field name; None for any other form (`--help`, `--limit=5`, a bad value, a
    typo), which click then explains."""
    values: dict[str, object] = {}
    words: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in flags:
            values[flags[arg]] = True
        elif arg in valued and rest and not rest[0].startswith("-"):
            key, convert = valued[arg]
            value = convert(rest.pop(0))
            if value is None:
                return None
            values[key] = value
        elif arg.startswith("-"):
            return None
        else:
            words.append(arg)
    return values, words
