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

from kenso_git.records import NamedTuple

# No `typing` import here: `sync` and `search` start git (repo/prestart.py) before it loads.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence
    from typing import NoReturn

    from kenso_git.api.git import EarlyStatus
    from kenso_git.api.git import Started
    from kenso_git.api.workspace import Workspace
    from kenso_git.kb import KnowledgeBase


# The cyclic collector runs after this many new container objects (Python's default: 700).
# An ingest or lint makes millions of tuples that refcounting frees and no cycle holds, and
# at 700 the collector walked the young ones again and again: 18% of a lint of 55k findings,
# 7% of an ingest of 166k `relates_to` entries (#14). Cycles are still collected.
GC_THRESHOLD = 50_000


def main(argv: Sequence[str] | None = None) -> None:
    """Run `kenso-git` with `argv` (default: the process's arguments)."""
    import gc

    _standard_streams()
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-"):
        from kenso_git.triggers.githooks.runner import hook_main

        hook_main(args[1], args[2:])
        _exit_now()
    # The process's own command line (not a caller's `main([...])`): exit without teardown.
    own = argv is None
    started = _prestart(args)
    if args and args[0] == "sync":
        sync = parse_sync_args(args[1:])
        if sync is not None:
            _run_fast(lambda: _plain_sync(sync, started), exit_now=own)
    if args and args[0] == "serve" and _plain_env():
        from kenso_git.cli.serve_fast import parse_serve_args

        serve = parse_serve_args(args[1:])
        if serve is not None:
            from kenso_git.cli.serve_fast import serve_stdio

            _run_fast(lambda: serve_stdio(serve, started), exit_now=own)
    if args and args[0] == "search" and not os.environ.get("KENSO_LOG_LEVEL"):
        search = parse_search_args(args[1:])
        if search is not None:
            _run_fast(lambda: _plain_search(search, started), exit_now=own)
    _drop(started)
    from kenso_git.cli.main import main as cli_main

    cli_main(args)


_STREAMS = (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w"))


def _standard_streams() -> None:
    """Put `/dev/null` on any of fds 0-2 that was closed when the process started
    (`kenso-git search x >&-`), as `> /dev/null` would: Python then leaves `sys.stdout`
    None (the command crashed on its first print), and the next file opened would get fd 1,
    where a print or a child's output lands. The command runs as usual, its output unseen."""
    for name, fd, mode in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:  # EBADF: closed
            null = os.open(os.devnull, os.O_RDWR)
            if null == fd:
                os.set_inheritable(fd, True)  # git and hooks get it too, as a shell's would
            else:  # not the lowest free number (cannot happen in order 0-2; be sure)
                os.dup2(null, fd)  # inheritable
                os.close(null)
        if getattr(sys, name) is None:
            stream = open(  # noqa: SIM115  # the process's own stream, open until it ends
                fd,
                mode,
                encoding="utf-8",
                errors="surrogateescape" if mode == "r" else "backslashreplace",
                closefd=False,
                buffering=1 if fd == 2 else -1,  # stderr line by line, as Python has it
            )
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)


def _exit_now(code: int = 0) -> NoReturn:
    """Exit with `code` at once. A hook's or a fast command's work is committed by now (a
    write transaction commits or rolls back before its command returns; no atexit handler
    is registered); the interpreter's teardown (freeing every module and object) would add
    ~10 ms to each git command and 15-25 ms to a search."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None: a stream the process never had (a caller's main())
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    os._exit(code)


def _run_fast(produce: Callable[[], str | None], *, exit_now: bool = False) -> NoReturn:
    """Run a fast-path command: print its text, map errors to exit codes as the CLI does;
    with `exit_now`, leave without the interpreter's teardown."""
    from kenso_git.cli.exit import run_and_exit

    def run() -> None:
        text = produce()
        if text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    try:
        run_and_exit(run)
    except SystemExit as done:
        if not exit_now:
            raise
        code = done.code
        if not isinstance(code, int):  # SystemExit(None) is 0; a message is printed, 1
            if code is not None:
                sys.stderr.write(f"{code}\n")
            code = 0 if code is None else 1
        _exit_now(code)


def _plain_env() -> bool:
    """Whether the environment leaves `serve` to the SDK-free stdio loop (#32)."""
    return os.environ.get("KENSO_MCP_SDK") != "1" and os.environ.get(
        "KENSO_TRANSPORT", "stdio"
    ) in ("", "stdio")


_OFF = ("0", "false", "no", "off")  # how KENSO_QUERY_SYNC says no (config.py reads it alike)


def _query_sync_by_env() -> bool:
    """False when KENSO_QUERY_SYNC turns the freshness check off (the settings file is read
    later: a status started for it is then stopped unread)."""
    return os.environ.get("KENSO_QUERY_SYNC", "").strip().lower() not in _OFF


def _prestart(args: list[str]) -> Started | None:
    """The first `git status` of a plain `sync`, or of a `search` that checks freshness,
    started before anything else is imported (#16: at 48,600 docs git takes ~130 ms, and
    only what runs after it starts overlaps it). A command line that turns out not to be
    plain drops it (`_drop`)."""
    if not args or args[0] not in ("sync", "search", "serve") or "--no-sync" in args:
        return None
    if args[0] == "serve" and (not _plain_env() or "--root" in args):
        return None  # the first query's check starts its own (another tree, or the SDK's)
    if any(arg in ("-h", "--help") for arg in args):
        return None
    if args[0] == "search" and os.environ.get("KENSO_LOG_LEVEL"):
        return None  # the click command answers it
    if args[0] == "search" and not _query_sync_by_env():
        return None  # no freshness check to answer
    from kenso_git.api.git import prestart

    return prestart.start()


def _drop(started: Started | None) -> None:
    """Stop a status that no one will read (imported only when one was started)."""
    if started is not None:
        from kenso_git.api.git import stop_unread

        stop_unread(started)


def _plain_sync(options: SyncArgs, started: Started | None = None) -> str | None:
    ws, early = _early_status(started)  # before the ~30 ms of imports below (#16)
    from kenso_git.cli.plaintext import sync_text

    return sync_text(
        as_json=options.as_json,
        quiet=options.quiet,
        db_path=options.db_path,
        workspace=ws,
        early=early,
    )


def _early_status(
    started: Started | None = None,
) -> tuple[Workspace | None, EarlyStatus | None]:
    """The work tree around the current folder, and the first `git status` of it: `started`
    when it looked at this work tree, else one started now (None, None on any trouble: the
    caller then finds both itself, and says why it cannot)."""
    from pathlib import Path

    from kenso_git.api.git import gitstatus
    from kenso_git.api.git import head_commit
    from kenso_git.api.workspace import find_workspace
    from kenso_git.errors import KensoError

    try:
        ws = find_workspace(Path.cwd())
    except (KensoError, OSError):
        _drop(started)
        return None, None
    early = None if started is None else gitstatus.adopt_status(ws, started)
    return ws, early if early is not None else gitstatus.start_status(ws, head=head_commit(ws))


def _plain_search(options: SearchArgs, started: Started | None = None) -> str:
    if options.ref is not None:
        _drop(started)  # the docs at REV: the work tree's status is not asked
        return _search_at(options)
    # The freshness check's `git status`, before the ~60 ms of imports below (#16)
    checks = not options.no_sync and _query_sync_by_env()
    ws, early = _early_status(started) if checks else (None, None)
    if not checks:
        _drop(started)
    try:
        from pathlib import Path

        from kenso_git.kb import KnowledgeBase

        if ws is None:
            kb = KnowledgeBase.open(Path.cwd(), db=options.db_path)
        else:
            kb = KnowledgeBase.of_workspace(ws, db=options.db_path)
        if options.no_sync:
            kb.settings = kb.settings._replace(query_sync=False)
        if ws is None or kb.workspace == ws:  # an index of another root: not its status
            kb.start_early(early)
        return _answer(kb, options)
    finally:
        if early is not None:
            early.discard()


def _search_at(options: SearchArgs) -> str:
    """`search --ref REV`: the answer over a copy of the index with the docs as at REV."""
    from pathlib import Path

    from kenso_git.api.revision import at_revision
    from kenso_git.kb import KnowledgeBase

    assert options.ref is not None
    kb = KnowledgeBase.open(Path.cwd(), db=options.db_path)
    with at_revision(kb, options.ref) as (at, _revision):
        return _answer(at, options)


def _answer(kb: KnowledgeBase, options: SearchArgs) -> str:
    from kenso_git.cli.plaintext import search_text

    return search_text(
        kb,
        options.query,
        limit=options.limit,
        category=options.category,
        as_json=options.as_json,
        color=options.color,
        dated=options.ref is None,  # the index knows the checkout's dates, not REV's
    )


# The fields are the destinations of `SYNC_OPTIONS` and `SEARCH_OPTIONS`; their defaults
# come from those declarations too.
class SyncArgs(NamedTuple):
    as_json: bool
    quiet: bool
    db_path: str | None


class SearchArgs(NamedTuple):
    query: str
    limit: int | None  # None: no --limit given
    category: str | None
    as_json: bool
    db_path: str | None
    color: str
    no_sync: bool = False
    ref: str | None = None


def parse_sync_args(args: list[str]) -> SyncArgs | None:
    """The options of a plain `sync` command line, or None to let click handle it."""
    from kenso_git.cli.options import SYNC_OPTIONS
    from kenso_git.cli.options import parse_plain

    parsed = parse_plain(args, SYNC_OPTIONS)
    if parsed is None or parsed[1]:
        return None
    return SyncArgs(**parsed[0])  # type: ignore[arg-type]  # values typed by their declarations


def parse_search_args(args: list[str]) -> SearchArgs | None:
    """The options of a plain `search` command line, or None to let click handle it."""
    from kenso_git.cli.options import SEARCH_OPTIONS
    from kenso_git.cli.options import parse_plain

    parsed = parse_plain(args, SEARCH_OPTIONS)
    if parsed is None or len(parsed[1]) != 1:
        return None
    return SearchArgs(parsed[1][0], **parsed[0])  # type: ignore[arg-type]  # as above
