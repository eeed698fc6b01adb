"""`kenso-git search`: query the index from the terminal (never creates an index)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kenso_git.kb import KnowledgeBase
from kenso_git.output import Style
from kenso_git.output import use_color

_STAGE_STYLE = {"AND": "bold_green", "NEAR": "bold_blue", "OR": "bold_yellow"}
_RELEVANCE_STYLE = {"high": "green", "medium": "yellow", "low": "red"}


@click.command()
@click.argument("query")
@click.option("--limit", "-n", default=5, show_default=True, help="Maximum results (1..20).")
@click.option("--category", "-c", default=None, help="Only this exact category ('all' = any).")
@click.option("--json", "as_json", is_flag=True, help="Print the search_docs JSON array.")
@click.option("--db", "db_path", default=None, help="Database file (default .kenso/docs.db).")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the output.",
)
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
    if as_json:
        payload = kb.search_docs(query, category=category, limit=limit)
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    result = kb.search(query, category=category, limit=limit)
    style = Style(use_color(color, sys.stdout))
    hits = result.hits
    noun = "result" if len(hits) == 1 else "results"
    click.echo(f'{style("kenso-git", "bold")} · {len(hits)} {noun} for "{query}"')
    if result.corrected_query:
        click.echo(f'  (showing results for "{result.corrected_query}")')
    if not hits:
        click.echo("  no results: try fewer or broader words, or `kenso-git stats`")
        return
    click.echo()
    for hit in hits:
        stage = (
            f"  {style(hit.cascade_stage, _STAGE_STYLE[hit.cascade_stage])}"
            if hit.cascade_stage
            else ""
        )
        relevance = style(hit.relevance, _RELEVANCE_STYLE.get(hit.relevance, "dim"))
        click.echo(f"{hit.score:.2f}  {hit.file_path}{stage}  {relevance}")
        click.echo(f"      {hit.section_path or hit.title}")
        if hit.highlight:
            click.echo(f"      {style.marks(hit.highlight)}")
        click.echo()
