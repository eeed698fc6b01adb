"""The `kenso-git` executable's entry point.

`kenso-git hook NAME ARGS...` runs on every checkout, merge and commit, `kenso-git sync`
after edits, and `kenso-git search` whenever an agent or a person looks something up, so
their plain forms skip click (~25 ms to import) and go straight to the library. Every other
command, and any other form of these three (`--help`, `--limit=5`, a typo), goes through
the click CLI.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple
from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> None:
    """Run `kenso-git` with `argv` (default: the process's arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-"):
        from kenso_git.hooks import hook_main

        hook_main(args[1], args[2:])
        _exit_now()
    if args and args[0] == "sync":
        options = parse_sync_args(args[1:])
        if options is not None:
            _run_plain_sync(options)
    if args and args[0] == "search" and not os.environ.get("KENSO_LOG_LEVEL"):
        search = parse_search_args(args[1:])
        if search is not None:
            _run_fast(lambda: _plain_search(search))
    from kenso_git.cli import main as cli_main

    cli_main(args)


def _exit_now() -> None:
    """Exit 0 at once. A hook's work is committed and its connections closed by now; the
    interpreter's teardown (freeing every module) would add ~10 ms to each git command."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)


def _run_plain_sync(options: dict[str, object]) -> None:
    _run_fast(
        lambda: run_sync(
            as_json=bool(options["as_json"]),
            quiet=bool(options["quiet"]),
            db_path=options["db_path"] if isinstance(options["db_path"], str) else None,
        )
    )


def _run_fast(produce: Callable[[], str | None]) -> NoReturn:
    """Run a fast-path command: print its text, map errors to exit codes as the CLI does."""
    from kenso_git.errors import KensoError

    try:
        text = produce()
        if text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except KensoError as err:
        from kenso_git.output import report_error

        report_error(err)
        raise SystemExit(int(err.exit_code)) from None
    except KeyboardInterrupt:
        sys.stderr.write("kenso-git: interrupted\n")
        raise SystemExit(130) from None
    except BrokenPipeError:  # `kenso-git search x | head`: not worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def _plain_search(options: SearchArgs) -> str:
    from kenso_git.kb import KnowledgeBase
    from kenso_git.searchtext import search_text

    kb = KnowledgeBase.open(Path.cwd(), db=options.db_path)
    return search_text(
        kb,
        options.query,
        limit=options.limit,
        category=options.category,
        as_json=options.as_json,
        color=options.color,
    )


class SearchArgs(NamedTuple):
    query: str
    limit: int = 5
    category: str | None = None
    as_json: bool = False
    db_path: str | None = None
    color: str = "auto"


_SEARCH_VALUES = {"--limit": "limit", "-n": "limit", "--category": "category", "-c": "category"}
_SEARCH_VALUES |= {"--db": "db_path", "--color": "color"}


def parse_search_args(args: list[str]) -> SearchArgs | None:
    """The options of a plain `search` command line, or None to let click handle it
    (`--help`, `--limit=5`, a bad value, a second query, a typo: click explains)."""
    query: str | None = None
    values: dict[str, object] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json":
            values["as_json"] = True
        elif arg in _SEARCH_VALUES and rest:
            key, value = _SEARCH_VALUES[arg], rest.pop(0)
            if key == "limit":
                if not value.isdigit():
                    return None
                values[key] = int(value)
            elif key == "color" and value not in ("auto", "always", "never"):
                return None
            else:
                values[key] = value
        elif arg.startswith("-") or query is not None:
            return None
        else:
            query = arg
    return None if query is None else SearchArgs(query, **values)  # type: ignore[arg-type]


def run_sync(*, as_json: bool, quiet: bool, db_path: str | None) -> str | None:
    """Sync the index of the work tree around the current folder; the text to print."""
    from kenso_git.kb import KnowledgeBase

    kb = KnowledgeBase.open(Path.cwd(), db=db_path)
    from kenso_git.output import finish_progress
    from kenso_git.output import progress_printers

    progress, warn = progress_printers()
    report = kb.sync(progress=progress, warn=warn)
    finish_progress()
    counts = {s: report.count(s) for s in ("ingested", "unchanged", "skipped", "removed", "error")}
    if as_json:
        data: dict[str, object] = {"scope": report.scope, "head": report.head, **counts}
        data["elapsed_s"] = round(report.elapsed, 4)
        return json.dumps(data, indent=2)
    if not quiet or report.changed:
        return (
            f"kenso-git · synced {len(report.results)} files · {counts['ingested']} updated · "
            f"{counts['removed']} removed · {counts['unchanged']} unchanged "
            f"({report.elapsed * 1000:.0f} ms)"
        )
    return None


def parse_sync_args(args: list[str]) -> dict[str, object] | None:
    """The options of a plain `sync` command line, or None to let click handle it."""
    options: dict[str, object] = {"as_json": False, "quiet": False, "db_path": None}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("-q", "--quiet"):
            options["quiet"] = True
        elif arg == "--json":
            options["as_json"] = True
        elif arg == "--db" and rest and not rest[0].startswith("-"):
            options["db_path"] = rest.pop(0)
        else:
            return None  # --help, typos, anything else: click answers
    return options
