"""`kenso-git state`: the `index_state` tool's payload from the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import DB
from kenso_git.cli.options import JSON
from kenso_git.cli.render import local_time
from kenso_git.serve.service import Service
from kenso_git.serve.status import state_of


@click.command()
@option(JSON.with_help("Print the index_state JSON object."))
@option(DB)
def state(as_json: bool, db_path: str | None) -> None:
    """Show what the index_state MCP tool answers: counts, size, freshness, scoped roots.

    Exit codes: 0 ok, 3 no index yet (state never creates one).
    """
    # the tool's answer without the tool's door, which shows paths as an agent may see
    # them: the terminal names the index by its absolute path, as `stats` does
    service = Service(Path.cwd(), db=db_path)
    service.one_shot = True  # this process checks once: its query watch never arms
    payload = state_of(service)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for key, value in payload.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        if isinstance(value, dict):  # query_watch: its state, then why or how many folders
            why = value["reason"] or f"{value['folders']} folders"
            shown = f"{value['state']} ({why})"
        if key == "synced_at" and isinstance(value, int | float):
            shown = local_time(value)  # --json keeps the seconds, for scripts (#26)
        click.echo(f"{key}: {'-' if shown is None else shown}")
