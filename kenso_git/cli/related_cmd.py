"""`kenso-git related PATH`: the `find_related` tool's answer from the terminal."""

from __future__ import annotations

import json
import os
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


def _start(path: str, db_path: str | None) -> Path:
    """Where the index is looked for: from the folder of the file PATH names from here (so
    the repository, or outside git the index, holding it is found from outside it too, as
    lint finds a file's repository), else from the current folder; `--db` names its own."""
    here = Path.cwd()
    target = Path(path) if Path(path).is_absolute() else here / path
    if db_path is not None or not target.is_file():
        return here
    return target.parent


def _from_here(path: str, root: Path) -> str:
    """`path` repo-relative when it names a file from a subfolder of the work tree (as
    lint's paths do); else as given (a search result's path), for the scope gate to judge."""
    here = Path.cwd()
    if here == root or Path(path).is_absolute():
        return path
    candidate = Path(os.path.normpath(here / path))
    if not candidate.is_file() or not candidate.is_relative_to(root):
        return path
    return candidate.relative_to(root).as_posix()


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

    PATH is a search result's path (repo-relative), or a file's path from the current
    folder, as lint takes it. Exit codes: 0 ok, 1 PATH is refused by the scope or not in
    the index, 2 a bad cursor, 3 no index yet.
    """
    from kenso_git.cli.plaintext import checked_page_size

    page_size = checked_page_size(page_size)
    service = Service(_start(path, db_path), db=db_path)
    path = _from_here(path, service.workspace.root)
    payload, _ = service.find_related(path, page_size, cursor)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for item in payload["results"]:
        relations = f" ({', '.join(item['relation_types'])})" if item["relation_types"] else ""
        click.echo(f"{item['path']}\t{', '.join(item['why'])}{relations}")
    if payload["next_cursor"]:
        click.echo(f"next page: --cursor {payload['next_cursor']}")
