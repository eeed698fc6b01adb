"""`kenso-git serve` over stdio without click and without the SDK: the entry's fast path (#32).

What an editor runs at the start of every session. It does what the click command does for
stdio (the same Service, logging to stderr, the watcher) and answers through the SDK-free
loop (`serve.stdio`). The watcher starts once the first tool call is answered (or after
`WATCH_AFTER_S`): importing watchfiles and walking the tree would otherwise compete with that
answer, and the query-time check keeps answers fresh meanwhile. A configuration asking for
another transport goes back to the click command.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.records import NamedTuple

if TYPE_CHECKING:
    from kenso_git.api.git import Started
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.serve.service import Service

WATCH_AFTER_S = 2.0


class ServeArgs(NamedTuple):
    transport: str | None
    no_watch: bool
    db_path: str | None
    root: Path | None


def parse_serve_args(args: list[str]) -> ServeArgs | None:
    """The options of a plain stdio `serve` command line, or None to let click handle it."""
    from kenso_git.cli.options import SERVE_OPTIONS
    from kenso_git.cli.options import parse_plain

    parsed = parse_plain(args, SERVE_OPTIONS)
    if parsed is None or parsed[1]:
        return None
    values = parsed[0]
    root = values["root"]
    return ServeArgs(
        transport=values["transport"],  # type: ignore[arg-type]  # typed by its declaration
        no_watch=bool(values["no_watch"]),
        db_path=values["db_path"],  # type: ignore[arg-type]
        root=Path(str(root)) if root is not None else None,
    )


def serve_stdio(options: ServeArgs, started: Started | None = None) -> None:
    """Serve MCP over stdio until the client closes its end.

    Raises:
        KensoError: the root or the configuration is unusable (the caller names the code).
    """
    import time

    from kenso_git.serve.service import Service

    read_since_ns = time.time_ns()  # the config files changed since are read again once
    service = Service(options.root, db=options.db_path)
    if options.root is not None:  # never silently another root than the one asked for
        from kenso_git.api.workspace import check_root_option

        kb = service.main_kb()
        check_root_option(
            options.root, kb.lost_root or str(kb.workspace.root), kb.db_path, verb="serve"
        )
    settings = service.settings
    if options.transport is None and settings.transport != "stdio":
        from kenso_git.api.git import stop_unread
        from kenso_git.cli.main import main as cli_main  # the configured transport: click's

        stop_unread(started)

        cli_main(["serve", *sys.argv[2:]])
        return
    if started is not None:  # git ran while the modules loaded: the start-up check's status
        from kenso_git.api.git import gitstatus

        early = gitstatus.adopt_status(service.workspace, started)
        if early is not None and settings.query_sync:
            _check_at_start(service, early)
        elif early is not None:
            early.discard()
    logging.basicConfig(
        level=getattr(logging, settings.log_level.upper(), logging.WARNING),
        format="%(name)s: %(levelname)s: %(message)s",
        stream=sys.stderr,  # stdout carries the protocol
    )
    watching = settings.watch and not options.no_watch
    starter = _WatchStarter(service) if watching else None
    from kenso_git.serve.mcp.stdio import run

    try:
        run(
            service,
            after_first_call=None if starter is None else starter.start,
            read_since_ns=read_since_ns,
        )
    finally:
        if starter is not None:
            starter.stop()


def _check_at_start(service: Service, early: EarlyStatus) -> None:
    """Bring the index to the work tree as the process started, with the status git ran
    meanwhile, in the background: the first tool call then checks only what changed since
    (its own status, beside its read). Handed to that call instead, a status older than the
    call answered it without a page created after the server started."""
    kb = service.main_kb()
    kb.start_early(early)

    def check() -> None:
        import contextlib

        from kenso_git.errors import KensoError

        with contextlib.suppress(KensoError):  # the first call's own check says what is wrong
            kb.refresh()

    threading.Thread(target=check, name="kenso-start-check", daemon=True).start()


class _WatchStarter:
    """Starts the watcher once: after the first answer, or after `WATCH_AFTER_S`."""

    def __init__(self, service: Service) -> None:
        self.service = service
        service.watch_planned = True  # health says "starting" until then, never "off"
        self._lock = threading.Lock()
        self._done = False
        self._timer = threading.Timer(WATCH_AFTER_S, self.start)
        self._timer.daemon = True
        self._timer.start()

    def start(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        self._timer.cancel()
        from kenso_git.errors import KensoError
        from kenso_git.triggers.watcher import Watcher

        try:
            watcher = Watcher(self.service.main_kb(), on_rules=self.service.reload_rules)
            watcher.start()
        except KensoError as err:  # the watcher cannot start: health says why
            logging.getLogger("kenso_git.mcp").info("no watcher: %s", err.message)
            hint = f"; {err.hint}" if err.hint else ""
            self.service.watch_error = f"the watcher could not start: {err.message}{hint}"
            return
        self.service.watcher = watcher

    def stop(self) -> None:
        with self._lock:
            self._done = True
        self._timer.cancel()
        if self.service.watcher is not None:
            self.service.watcher.stop()
        self.service.revisions.close()
