"""`kenso-git related PATH`: the `find_related` tool's answer from the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import DB
from kenso_git.cli.options import JSON
from kenso_git.cli.options import Option
from kenso_git.serve.service import Service

PAGE_SIZE = Option(
    ("--page-size",), "page_size", "count", "Documents per page (1..50, default 10)."
)
CURSOR = Option(("--cursor",), "cursor", "text", "next_cursor of the previous page.")


@click.command()
@click.argument("path")
@option(JSON.with_help("Print the find_related JSON page."))
@option(PAGE_SIZE)
@option(CURSOR)
@option(DB)
def related(
    path: str, as_json: bool, page_size: int | None, cursor: str | None, db_path: str | None
) -> None:
    """List the docs related to PATH and why: links to and from it (relates_to and inline
    Markdown links), then docs with the same file name elsewhere, then its folder.

    PATH is repo-relative, like a search result's path. Exit codes: 0 ok, 1 PATH is refused
    by the scope or not in the index, 2 a bad cursor, 3 no index yet.
    """
    payload, _ = Service(Path.cwd(), db=db_path).find_related(path, page_size, cursor)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for item in payload["results"]:
        relations = f" ({', '.join(item['relation_types'])})" if item["relation_types"] else ""
        click.echo(f"{item['path']}\t{', '.join(item['why'])}{relations}")
    if payload["next_cursor"]:
        click.echo(f"next page: --cursor {payload['next_cursor']}")
