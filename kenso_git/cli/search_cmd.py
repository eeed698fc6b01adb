"""`kenso-git search`: query the index from the terminal (never creates an index)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kenso_git.cli.click_options import options
from kenso_git.cli.options import SEARCH_OPTIONS
from kenso_git.cli.plaintext import search_text
from kenso_git.kb import KnowledgeBase


@click.command()
@click.argument("query")
@options(*SEARCH_OPTIONS)
def search(
    query: str, limit: int, category: str | None, as_json: bool, db_path: str | None, color: str
) -> None:
    """Search the docs index with BM25 ranking (AND, then NEAR, then OR).

    \b
    Examples:
      kenso-git search "deployment pipeline"
      kenso-git search retries --category payments --limit 10
      kenso-git search "pre-commit hooks" --json | jq '.[0].file_path'

    Exit codes: 0 ok (also when nothing matched), 2 bad usage, 3 no index yet.
    """
    kb = KnowledgeBase.open(Path.cwd(), db=db_path)
    text = search_text(kb, query, limit=limit, category=category, as_json=as_json, color=color)
    sys.stdout.write(text + "\n")
