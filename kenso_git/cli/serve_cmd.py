"""`kenso-git serve` (MCP over stdio or HTTP) and `kenso-git connect CLIENT [--write]`."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import DB
from kenso_git.cli.options import ROOT
from kenso_git.errors import UsageError
from kenso_git.serve.connect import CLIENTS
from kenso_git.serve.connect import plan
from kenso_git.serve.connect import write


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
@option(DB)
@option(ROOT.with_help("Repository to serve (default: the one around the current directory)."))
def serve(
    transport: str | None,
    host: str | None,
    port: int | None,
    allow_remote: bool,
    db_path: str | None,
    root: Path | None,
) -> None:
    """Serve the docs index to MCP clients (read-only; never creates an index).

    \b
    Over stdio (default) an editor starts it: see `kenso-git connect`.
    Over HTTP (--transport http) it listens on 127.0.0.1:8000/mcp; every request
    needs the bearer token from .kenso/http.token.
    """
    from kenso_git.serve.service import Service

    service = Service(root, db=db_path)
    settings = service.settings
    _setup_logging(settings.log_level)
    chosen = transport or settings.transport
    if chosen == "stdio":
        from kenso_git.serve.server import run_stdio

        run_stdio(service)
        return
    from kenso_git.serve.http import run_http

    run_http(
        service,
        host=host or settings.host,
        port=settings.port if port is None else port,
        allow_remote=allow_remote,
    )


@click.command()
@click.argument("client", type=click.Choice(sorted(CLIENTS)))
@click.option("--write", "do_write", is_flag=True, help="Merge the entry into the client's file.")
@option(ROOT.with_help("Repository for project-level configs (default: the current one)."))
def connect(client: str, do_write: bool, root: Path | None) -> None:
    """Print (or --write) the MCP entry that lets CLIENT start `kenso-git serve`.

    \b
    claude-code  .mcp.json            cursor  .cursor/mcp.json
    vscode       .vscode/mcp.json     codex   ~/.codex/config.toml
    gemini       ~/.gemini/settings.json
    --write keeps the other entries, saves a .bak copy first and replaces the file atomically.
    """
    from kenso_git.repo.workspace import find_workspace

    workspace = find_workspace(root)
    result = plan(client, workspace.root, Path.home())
    if not do_write:
        click.echo(result.snippet, nl=False)
        click.echo(f"add this to {result.path}, or rerun with --write", err=True)
        return
    try:
        backup = write(result)
    except OSError as err:
        raise UsageError(
            f"cannot write {result.path}: {err.strerror}", path=str(result.path)
        ) from err
    note = f" (previous version in {backup.name})" if backup else ""
    click.echo(f"wrote the {client} entry to {result.path}{note}")
