"""`kenso-git serve` (MCP over stdio or HTTP) and `kenso-git connect CLIENT [--write]`."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import DB
from kenso_git.cli.options import ROOT
from kenso_git.connect.clients import CLIENTS
from kenso_git.connect.clients import is_current
from kenso_git.connect.clients import plan
from kenso_git.connect.clients import write
from kenso_git.connect.clients import write_command
from kenso_git.errors import ExitCode
from kenso_git.errors import UsageError

MAX_PORT = 65535

if TYPE_CHECKING:
    from kenso_git.connect.clients import Entry
    from kenso_git.serve.service import Service


def _setup_logging(level: str) -> None:
    # stdout carries the protocol over stdio: every log line goes to stderr.
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.WARNING),
        format="%(name)s: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )


@click.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http", "streamable-http"]),
    default=None,
    help="Transport (default stdio, or KENSO_TRANSPORT).",
)
@click.option("--host", default=None, help="HTTP bind address (default 127.0.0.1, or KENSO_HOST).")
@click.option("--port", type=int, default=None, help="HTTP port (default 8000, or KENSO_PORT).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a non-loopback HTTP bind address (the bearer token is still required).",
)
@click.option(
    "--no-watch",
    is_flag=True,
    help="Do not watch the checkout (docs are still synced before each answer).",
)
@option(DB)
@option(ROOT.with_help("Repository to serve (default: the one around the current directory)."))
def serve(
    transport: str | None,
    host: str | None,
    port: int | None,
    allow_remote: bool,
    no_watch: bool,
    db_path: str | None,
    root: Path | None,
) -> None:
    """Serve the docs index to MCP clients (read-only; never creates an index).

    \b
    Over stdio (default) an editor starts it: see `kenso-git connect`.
    Over HTTP (--transport http) it listens on 127.0.0.1:8000/mcp; every request
    needs the bearer token from .kenso/http.token.
    A watcher syncs each doc as it is saved (--no-watch, or watch = false, turns it off).
    """
    from kenso_git.config import check_env
    from kenso_git.serve.service import Service

    if transport is None:
        check_env("KENSO_TRANSPORT")
    service = Service(root, db=db_path)
    if root is not None:  # never silently another root than the one asked for
        from kenso_git.api.workspace import check_root_option

        kb = service.main_kb()
        check_root_option(root, kb.lost_root or str(kb.workspace.root), kb.db_path, verb="serve")
    settings = service.settings
    _setup_logging(settings.log_level)
    chosen = transport or settings.transport
    if chosen != "stdio":
        from kenso_git.serve.http.transport import check_bind

        if port is None:
            check_env("KENSO_PORT")
        wanted = settings.port if port is None else port
        if not 0 <= wanted <= MAX_PORT:
            where = "--port" if port is not None else "KENSO_PORT"
            raise UsageError(
                f"{where} {wanted} is not a port: ports run from 0 to {MAX_PORT}",
                hint="pick a free port, say 8765",
            )
        check_bind(host or settings.host, allow_remote)  # refused before anything starts
    if settings.watch and not no_watch:
        from kenso_git.triggers.watcher import Watcher

        service.watcher = Watcher(service.main_kb(), on_rules=service.reload_rules)
        service.watcher.start()
    try:
        _run(service, chosen, host, port, allow_remote)
    finally:
        if service.watcher is not None:
            service.watcher.stop()
        service.revisions.close()


def _run(service: Service, chosen: str, host: str | None, port: int | None, remote: bool) -> None:
    settings = service.settings
    if chosen == "stdio":
        if os.environ.get("KENSO_MCP_SDK") == "1":  # the SDK's server (slower to start)
            from kenso_git.serve.mcp.server import run_stdio

            run_stdio(service)
        else:
            from kenso_git.serve.mcp.stdio import run

            run(service)  # no SDK import: the first answer near a bare SQLite query (#32)
        return
    from kenso_git.serve.http.transport import run_http

    run_http(
        service,
        host=host or settings.host,
        port=settings.port if port is None else port,
        allow_remote=remote,
    )


@click.command()
@click.argument("client", type=click.Choice(sorted(CLIENTS)))
@click.option("--write", "do_write", is_flag=True, help="Merge the entry into the client's file.")
@click.option(
    "--global",
    "user",
    is_flag=True,
    help="Use the client's user file (every project) instead of the project's file.",
)
@click.option(
    "--check",
    "do_check",
    is_flag=True,
    help="Start the configured entry as the client would and report whether it serves "
    "this repository's index.",
)
@option(
    ROOT.with_help(
        "Repository the entry serves (default: the one around the current directory, "
        "as serve finds it)."
    )
)
def connect(client: str, do_write: bool, user: bool, do_check: bool, root: Path | None) -> None:
    """Print (or --write) the MCP entry that lets CLIENT start `kenso-git serve`.

    \b
    project files (default)             user files (--global)
    claude-code  .mcp.json              ~/.claude.json
    cursor       .cursor/mcp.json       ~/.cursor/mcp.json
    vscode       .vscode/mcp.json       ~/.config/Code/User/mcp.json
    codex        .codex/config.toml     ~/.codex/config.toml
    gemini       .gemini/settings.json  ~/.gemini/settings.json
    The entry names this installation's kenso-git by absolute path, so it works however
    the client is launched. A project file's entry names the repository with --root; a
    user file's names none, and serves the project the client has open (Claude Code,
    Codex and Gemini CLI start it in that folder; Cursor and VS Code fill in
    ${workspaceFolder}). --write keeps the other entries and your keys in ours (env,
    timeout...), keeps the original beside it (a project file's as NAME.kenso-git.bak,
    which git does not see; a user file's as NAME.bak) and replaces the file atomically;
    --check starts the configured entry as the client would in this repository, with a
    minimal PATH, and says whether it serves this repository's index, and what to run when
    it does not (exit 1; exit 2 when there is no such file or entry); with --write, it
    checks the entry just written.
    Outside git, from a folder below the one `ingest` indexed, the repository is that
    folder, as `serve` finds it: the project file is written there.
    """
    from kenso_git.api.workspace import find_workspace
    from kenso_git.api.workspace import root_with_index
    from kenso_git.connect.clients import entry_for
    from kenso_git.connect.clients import user_entry_note

    workspace = root_with_index(find_workspace(root))  # the root `serve` takes from there
    fix = write_command(client, user=user, root=workspace.root if root is not None else None)
    if do_check and not do_write:
        _check(client, workspace.root, user, fix)
        return
    shown = entry_for(client, workspace.root, Path.home(), user=user)  # the file is not read
    if do_write:
        _write(shown, workspace.root, user)
    else:
        click.echo(shown.snippet, nl=False)
        click.echo(f"add this to {shown.path}, or rerun with --write", err=True)
    if user:
        click.echo(user_entry_note(shown.client), err=True)
    else:
        _above_note(client, workspace.root)
    if do_check:  # --write --check: the entry just written is started as the client would
        _check(client, workspace.root, user, fix)


def _above_note(client: str, root: Path) -> None:
    """A project file written above the current folder is read only by a client that opens
    the repository's root as its project (Claude Code, Codex and Gemini CLI take the folder
    they start in; Cursor and VS Code the folder opened)."""
    here = Path.cwd().resolve()
    if here == root.resolve():
        return
    click.echo(
        f"the project file is at the repository's root, {root}: open or start {client} "
        f"there (a client started in {here} reads the project file of that folder), "
        "or use --global",
        err=True,
    )


def _write(shown: Entry, root: Path, user: bool) -> None:
    """Merge the entry into its file; on any refusal the entry is printed first, for the
    hint that says to add it by hand."""
    client = shown.client.name
    try:
        command = str(shown.entry["command"])  # the same installation as the entry printed
        planned = plan(client, root, Path.home(), command, user=user)
        if is_current(planned):
            click.echo(f"the {client} entry in {shown.path} is up to date: nothing written")
            return
        backup = write(planned)
    except OSError as err:
        click.echo(shown.snippet, nl=False)
        raise UsageError(
            f"cannot write {shown.path}: {err.strerror}",
            path=str(shown.path),
            hint="add the entry printed above by hand",
        ) from err
    except UsageError:
        click.echo(shown.snippet, nl=False)
        raise
    note = f" (the original is kept in {backup})" if backup else ""
    click.echo(f"wrote the {client} entry to {shown.path}{note}")
    if client == "codex" and not user:
        click.echo("Codex reads .codex/config.toml only in a project you marked as trusted.")


def _check(client: str, root: Path, user: bool, fix: str) -> None:
    from kenso_git.connect.check import check_client

    path, outcome = check_client(client, root, Path.home(), fix, user=user)
    click.echo(f"{client} ({path}): {outcome.message}")
    if outcome.hint:
        click.echo(f"  hint: {outcome.hint}")
    if not outcome.ok:
        sys.exit(int(ExitCode.FAILURE))
