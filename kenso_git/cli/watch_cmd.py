"""`kenso-git watch`: the server's watcher in the foreground, for readers that are not it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import DB
from kenso_git.cli.options import JSON
from kenso_git.cli.options import ROOT
from kenso_git.errors import NoIndexError
from kenso_git.triggers.watcher import SyncNote
from kenso_git.triggers.watcher import Watcher
from kenso_git.triggers.watcher import WatcherStatus


@click.command()
@option(JSON.with_help("Print one JSON object a line (watching, sync, error, stopped)."))
@click.option(
    "--poll",
    is_flag=True,
    help="Compare stat data every second instead of waiting for file-system events.",
)
@option(DB)
@option(ROOT.with_help("Repository to watch (default: the one around the current directory)."))
def watch(as_json: bool, poll: bool, db_path: str | None, root: Path | None) -> None:
    """Keep the index in step with every save until Ctrl-C (what `serve` does inside).

    \b
    Each sync is logged with how many paths it looked at, how many files it changed and
    its time.
    Writes go through the same lock as the hooks and `sync`; an index is never created.
    Exit codes: 0 stopped by Ctrl-C, 3 no index yet.
    """
    from kenso_git.config import load_settings
    from kenso_git.kb import KnowledgeBase

    kb = KnowledgeBase.open(root, db=db_path)
    if root is not None:  # never silently another root than the one asked for
        from kenso_git.api.workspace import check_root_option

        check_root_option(root, kb.lost_root or str(kb.workspace.root), kb.db_path, verb="watch")
    if not kb.has_index():
        raise NoIndexError(
            f"no search index yet ({kb.db_path} is missing)",
            hint="run `kenso-git ingest` first; watch never creates an index",
        )

    def say(event: str, text: str, **fields: object) -> None:
        if as_json:
            click.echo(json.dumps({"event": event, **fields}, ensure_ascii=False))
        else:
            click.echo(text)

    def on_sync(note: SyncNote) -> None:
        what = "compared the scope" if note.full else f"looked at {note.looked} path(s)"
        say(
            "sync",
            f"synced ({note.reason}): {what}, {note.changed} changed, {note.elapsed_ms:.0f} ms",
            reason=note.reason,
            looked=note.looked,
            changed=note.changed,
            full=note.full,
            ms=round(note.elapsed_ms, 1),
        )

    def on_rules() -> None:
        kb.settings = load_settings(kb.workspace.root)

    # its failures are printed below (`cannot sync`), not logged as well
    watcher = Watcher(kb, on_sync=on_sync, on_rules=on_rules, poll_only=poll, log_failures=False)
    say("watching", f"watching {kb.workspace.root} (Ctrl-C stops)", root=str(kb.workspace.root))
    watcher.start()
    seen = watcher.status()
    try:
        while True:
            now = watcher.wait_until(functools.partial(_differs, was=seen), 1.0)
            if now.ok is False and (seen.ok is not False or now.reason != seen.reason):
                say("error", f"cannot sync: {now.reason}", reason=now.reason)
            seen = now
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    say("stopped", f"stopped after {watcher.status().syncs} sync(s)", syncs=watcher.status().syncs)


def _differs(now: WatcherStatus, was: WatcherStatus) -> bool:
    return (now.ok, now.reason, now.mode) != (was.ok, was.reason, was.mode)
