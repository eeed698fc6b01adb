"""`kenso-git changed` and `kenso-git drift`: what git's history says about the docs."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import JSON
from kenso_git.cli.options import Option
from kenso_git.cli.output import shown_path
from kenso_git.errors import ExitCode
from kenso_git.errors import KensoError
from kenso_git.serve.service import Service

if TYPE_CHECKING:
    from kenso_git.api.results import ChangedDoc
    from kenso_git.api.results import ChangedDocs

SINCE = Option(("--since",), "since", "text", "The older revision (branch, tag, id, HEAD~3...).")
UNTIL = Option(
    ("--until",), "until", "text", "The newer revision (default: the work tree as it is now)."
)


CHANGED_LIMIT = Option(
    ("--limit", "-n"), "limit", "count", "List the first N changes only (default: every one)."
)
CURSOR = Option(("--cursor",), "cursor", "text", "next_cursor of the previous --limit list.")


def _when(stamp: object) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(stamp)) if isinstance(stamp, int) else "-"


def _line(item: ChangedDoc, why: Callable[[], str]) -> str:
    path = shown_path(item["path"])
    if "old_path" in item:
        path = f"{shown_path(item['old_path'])} -> {path}"
    last = item["last_commit"]
    count = item["commits"]
    commits = f"{count} commit{'' if count == 1 else 's'}"
    if last is not None:
        mark = " (+ uncommitted)" if item.get("uncommitted") else ""
        tail = f"{commits}, last {last['id'][:7]} {_when(last['time'])}{mark}"
    elif item.get("uncommitted"):
        tail = f"{commits}, last uncommitted"
    else:  # no commit from --since to --until (or HEAD) changed it, nor the work tree: why
        tail = f"{commits}{why()}"
    return f"{item['status']:<9} {path}\t{tail}"


def _no_commits(service: Service, payload: ChangedDocs, since: str, until: str | None) -> str:
    """Why a doc that differs between two revisions (`until` None: --since and the work
    tree, which holds HEAD's version of it) has no commit from one to the other, as the tail
    of its line: how the two stand in git's history (`git merge-base`)."""
    from kenso_git.api.git import history

    old, new = payload["since"], payload["until"]
    try:
        if new is None:
            new = history.resolve_revision(service.workspace, "HEAD")
        kin = history.kinship(service.workspace, old, new)
    except KensoError:  # git failed, or HEAD names no commit yet
        kin = ""
    side = "--until" if until is not None else "HEAD"
    if kin == "unrelated":
        return f": no common history between {since} and {until or 'HEAD'}"
    reason = {
        "newer": " (--since is the newer revision: swap them)"
        if until is not None
        else " (--since is newer than HEAD)",
        "diverged": " (only --since's side changed it since the two forked)",
    }.get(kin, "")
    return f" from --since to {side}{reason}"


@click.command()
@option(SINCE.with_help("The older revision (branch, tag, id, HEAD~3...). Required."))
@option(UNTIL)
@option(CHANGED_LIMIT)
@option(CURSOR)
@option(JSON.with_help("Print the changed_docs JSON object (every change, unless --limit)."))
def changed(
    since: str | None, until: str | None, limit: int | None, cursor: str | None, as_json: bool
) -> None:
    """List the docs added, modified, deleted or renamed since a revision.

    Renames are found by git's similarity detection. Without --until the newer side is the
    work tree, uncommitted and untracked docs included. Only docs the agent scope shows
    are listed (ignored files and paths outside `agent-scoped-roots` never are). Every
    change is listed, in path order; with --limit N the first N, and the last line (on
    stderr; next_cursor in --json) names the --cursor that lists the next ones.

    \b
    Examples:
      kenso-git changed --since v1.4
      kenso-git changed --since origin/main --until HEAD --json
      kenso-git changed --since v1.4 --limit 100 --json

    Exit codes: 0 ok, 2 an unknown revision, a bad --limit or --cursor, or not a git
    repository.
    """
    if not since:
        raise click.UsageError("--since REV is required (e.g. --since HEAD~10 or --since v1.4)")
    if limit is not None and limit < 1:
        raise click.BadParameter(
            "must be 1 or more (without --limit every change is listed)", param_hint="--limit"
        )
    service = Service(Path.cwd())
    payload, _ = service.changed_docs(since, until, limit, cursor, whole=True)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    why = functools.cache(lambda: _no_commits(service, payload, since, until))
    for item in payload["results"]:
        click.echo(_line(item, why))
    if not payload["total"]:
        click.echo("no doc changed", err=True)
    elif payload["next_cursor"] is not None:
        click.echo(
            f"... {payload['total']} changed in all; the next ones: --cursor "
            f"{payload['next_cursor']} (every one: leave --limit out)",
            err=True,
        )
    elif not payload["results"]:
        click.echo(f"no more changes after --cursor ({payload['total']} in all)", err=True)


@click.command()
@option(JSON.with_help("Print the drift JSON object."))
def drift(as_json: bool) -> None:
    """Say whether the upstream branch has newer agent instructions than HEAD.

    Compares AGENTS.md, CLAUDE.md, GEMINI.md, .github/copilot-instructions.md and
    .cursor/rules/** (at any depth) with the upstream branch as git last fetched it; never
    fetches. Exit codes: 0 ok (drifted or not: see the output), 2 not a git repository.
    """
    from kenso_git.api.git import NOT_A_REPOSITORY

    found = Service(Path.cwd()).drift()
    outside = found.reason == NOT_A_REPOSITORY
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2, ensure_ascii=False))
    elif found.reason:
        click.echo(f"no drift check: {found.reason}", err=outside)
    if outside:  # as the help says, and as `changed` exits there
        raise SystemExit(int(ExitCode.USAGE))
    if as_json or found.reason:
        return
    if not found.files:
        click.echo(f"{found.upstream} has no newer agent instructions (as last fetched)")
        return
    ahead = f"{found.behind} commit{'' if found.behind == 1 else 's'}"
    click.echo(f"{found.upstream} is {ahead} ahead with newer agent instructions:")
    for f in found.files:
        last = f.last_commit
        who = "" if last is None else f"  {last.id[:7]} {last.subject}"
        click.echo(f"  {f.status:<9} {f.path} (+{f.insertions} -{f.deletions}){who}")
