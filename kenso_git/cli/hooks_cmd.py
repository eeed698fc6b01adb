"""`kenso-git hooks install|uninstall|status`, and `kenso-git hook NAME ARGS...` for the shims."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import find_workspace
from kenso_git.cli.click_options import option
from kenso_git.cli.options import JSON
from kenso_git.errors import CorruptIndexError
from kenso_git.errors import KensoError
from kenso_git.errors import NoIndexError
from kenso_git.errors import UsageError

if TYPE_CHECKING:
    from kenso_git.triggers.githooks.install import HookReport
    from kenso_git.triggers.githooks.state import HookFile

_STATE_TEXT = {
    "installed": "installed",
    "outdated": "installed (an older shim: run `kenso-git hooks install` to update)",
    "missing": "not installed",
    "foreign": "another hook is there (`kenso-git hooks install` chains to it)",
    "pre-commit": "pre-commit's hook (add the kenso-reindex hook to .pre-commit-config.yaml)",
    "lefthook": "lefthook's hook (add kenso-git to lefthook.yml)",
    "wired": "runs kenso-git ({file})",
    "not-executable": "runs kenso-git, but git skips it: `chmod +x {file}`",
}
# In a folder kenso-git writes nothing into (husky's, the repository's own): install says
# what to add instead of chaining
_OWNED_TEXT = {
    "foreign": "{owner}'s hook, without kenso-git: add the line `kenso-git hooks install` "
    "prints to {file}",
    "missing": "not set up: create {file} with the line `kenso-git hooks install` prints",
}


def _git_workspace() -> Workspace:
    ws = find_workspace()
    if not ws.is_git:
        raise UsageError(
            f"not inside a git repository: {ws.root}",
            hint="git hooks need a repository; `git init` first, or use `kenso-git sync` by hand",
        )
    return ws


def _shown(ws: Workspace, path: Path) -> str:
    try:
        return path.relative_to(ws.root).as_posix()
    except ValueError:
        return str(path)


@click.group()
def hooks() -> None:
    """Install, remove or inspect the git hooks that keep the index fresh."""


@hooks.command()
def install() -> None:
    """Install the post-checkout/merge/rewrite and post-index-change shims (idempotent).

    Existing hooks are kept and still run; `kenso-git hooks uninstall` restores them. Beside
    husky, lefthook, pre-commit or a hooks folder the repository tracks, nothing is written
    there: it prints what to add to which file instead.
    """
    from kenso_git.kb import KnowledgeBase
    from kenso_git.triggers.githooks import install

    ws = _git_workspace()
    try:  # the index the hooks will sync: one they cannot use (a linked .kenso) gets no hooks
        kb = KnowledgeBase.of_workspace(ws)
    except KensoError as err:
        err.message = f"{err.message}; no hook was installed"
        raise
    report = install.install(ws)
    for line in _install_lines(ws, report):
        click.echo(line, err=True)
    if report.snippet:
        click.echo(report.snippet)
    from kenso_git.api.git import untracked_cache_tip

    tip = untracked_cache_tip(ws)
    if tip is not None:
        click.echo(tip, err=True)
    if not kb.has_index():
        click.echo("no index yet: run `kenso-git ingest` once; the hooks keep it fresh", err=True)


def _install_lines(ws: Workspace, report: HookReport) -> list[str]:
    """What install says on stderr: each file it changed, each hook git never runs, or
    that nothing was left to do."""
    from kenso_git.triggers.githooks.owned import OWNERS

    folder = _shown(ws, report.hooks_dir)
    lines = [f"{folder}/{line}" for line in report.changed] + list(report.notes)
    if not report.changed and report.owner is None:
        lines.append(f"kenso-git hooks already installed in {folder}")
    elif report.owner in OWNERS and report.snippet is None:
        files = f"{report.owner}'s hook files in {_shown(ws, report.hooks[0].path.parent)}"
        lines.append(f"kenso-git's hooks already run from {files}")
    return lines


@hooks.command()
def uninstall() -> None:
    """Remove kenso-git's shims and put back the hooks that were there before."""
    from kenso_git.api.workspace import remove_legacy_status_copy
    from kenso_git.triggers.githooks import install

    ws = _git_workspace()
    report = install.uninstall(ws)
    if ws.git_dir is not None:  # the status copy an earlier kenso-git kept in .git
        remove_legacy_status_copy(str(ws.git_dir))
    folder = _shown(ws, report.hooks_dir)
    for line in report.changed:
        click.echo(f"{folder}/{line}", err=True)
    if not report.changed:
        click.echo(f"no kenso-git hooks in {folder}", err=True)


def _freshness(ws: Workspace) -> dict[str, object]:
    """The index file as it is, against the work tree: `behind` when they differ. Nothing is
    synced, so this is what the hooks kept up; `state` and the MCP tools sync first and say
    `stale` only when that could not be done (a reader rarely sees what `behind` names)."""
    from kenso_git.kb import KnowledgeBase

    try:
        state = KnowledgeBase.of_workspace(ws).state()
    except NoIndexError:
        return {"index": "missing", "behind": None, "as_of": None, "synced_at": None}
    except CorruptIndexError:  # the hooks are still listed; `stats` and `sync` say more
        return {"index": "corrupt", "behind": None, "as_of": None, "synced_at": None}
    return {
        "index": "behind" if state.stale else "fresh",
        "behind": state.stale,
        "as_of": state.as_of,
        "synced_at": state.synced_at,
    }


def _freshness_line(fresh: dict[str, object]) -> str:
    if fresh["index"] == "missing":
        return "index: none yet (run `kenso-git ingest` once)"
    if fresh["index"] == "corrupt":
        return "index: corrupt (run `kenso-git ingest --rebuild`)"
    synced = fresh["synced_at"]
    ago = ""
    if isinstance(synced, float):
        ago = f", synced {max(0, int(time.time() - synced))} s ago"
    head = fresh["as_of"]
    at = f" at {head[:12]}" if isinstance(head, str) else ""
    if fresh["behind"]:
        return (
            f"index: behind the work tree{at}{ago} (a search or tool call syncs it first "
            "unless query-sync is off; `kenso-git sync` does now)"
        )
    return f"index: fresh{at}{ago}"


def _hook_text(ws: Workspace, report: HookReport, hook: HookFile) -> str:
    """One hook's state as `hooks status` says it (the JSON says `state` and `file`)."""
    from kenso_git.triggers.githooks.owned import OWNERS
    from kenso_git.triggers.githooks.owned import not_run

    owner, file = report.owner or "", _shown(ws, hook.path)
    if hook.state == "not-run":
        return not_run(owner, hook.name, _shown(ws, report.hooks_dir))
    text = _STATE_TEXT.get(hook.state, hook.state)
    if owner in OWNERS:
        text = _OWNED_TEXT.get(hook.state, text)
    return text.format(owner=owner, file=file)


def _pre_commit_text(name: str, state: str, text: str) -> str:
    """The state of one hook when .pre-commit-config.yaml already runs kenso-reindex."""
    from kenso_git.triggers.githooks.install import PRE_COMMIT_CONFIG
    from kenso_git.triggers.githooks.install import REINDEX_STAGES

    if name not in REINDEX_STAGES:
        return text
    if state == "pre-commit":
        return f"pre-commit's hook, runs kenso-reindex ({PRE_COMMIT_CONFIG})"
    if state == "missing":
        return f"kenso-reindex is configured: run `pre-commit install --hook-type {name}`"
    return text


def _status_json(
    ws: Workspace, report: HookReport, reindex: bool, fresh: dict[str, object]
) -> dict[str, object]:
    """`hooks status --json`: each hook's state and the file it is about, as the text says."""
    return {
        "hooks_dir": str(report.hooks_dir),
        "owner": report.owner,
        "hooks": {
            h.name: {"state": h.state, "chained": h.chained, "file": _shown(ws, h.path)}
            for h in report.hooks
        },
        "pre_commit_reindex": reindex,
        **fresh,
    }


@hooks.command()
@option(JSON.with_help("Print the status as JSON."))
def status(as_json: bool) -> None:
    """Say which hooks are installed and whether the index is fresh."""
    from kenso_git.triggers.githooks import install
    from kenso_git.triggers.githooks.owned import OWNERS

    ws = _git_workspace()
    report = install.status(ws)
    fresh = _freshness(ws)
    reindex = install.pre_commit_runs_reindex(ws)
    if as_json:
        click.echo(json.dumps(_status_json(ws, report, reindex, fresh), indent=2))
        return
    click.echo(f"hooks folder: {_shown(ws, report.hooks_dir)}")
    if report.owner in OWNERS and report.snippet is None:
        click.echo(f"  managed by {report.owner}: kenso-git's hooks run from lines in its files")
    elif report.owner:
        click.echo(f"  managed by {report.owner}: `kenso-git hooks install` prints what to add")
    for hook in report.hooks:
        chained = " (chains the previous hook)" if hook.chained else ""
        text = _hook_text(ws, report, hook)
        if reindex:
            text = _pre_commit_text(hook.name, hook.state, text)
        click.echo(f"  {hook.name:<18} {text}{chained}")
    click.echo(_freshness_line(fresh))


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("name")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook(name: str, args: tuple[str, ...]) -> None:
    """Run git hook NAME (what the installed shims call). Never fails: exits 0 whatever happens.

    NAME is post-checkout, post-merge, post-rewrite, post-commit, post-index-change, or
    pre-commit-framework (reads PRE_COMMIT_* variables).
    """
    from kenso_git.triggers.githooks.runner import hook_main

    hook_main(name, args)
