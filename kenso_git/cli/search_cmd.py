"""`kenso-git search`: query the index from the terminal (never creates an index)."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenso_git.cli.click_options import options
from kenso_git.cli.options import AGENT_SEARCH_OPTIONS
from kenso_git.cli.options import SEARCH_OPTIONS
from kenso_git.cli.output import shown_path
from kenso_git.cli.output import tsv_field
from kenso_git.cli.plaintext import search_text
from kenso_git.cli.plaintext import stale_notice
from kenso_git.kb import KnowledgeBase

if TYPE_CHECKING:
    from kenso_git.api.results import AgentPage


@click.command()
@click.argument("query")
@options(*SEARCH_OPTIONS, *AGENT_SEARCH_OPTIONS)
def search(
    query: str,
    limit: int | None,
    category: str | None,
    as_json: bool,
    db_path: str | None,
    color: str,
    no_sync: bool,
    path: str | None,
    ext: str | None,
    tag: str | None,
    since: str | None,
    exhaustive: bool,
    page_size: int | None,
    cursor: str | None,
    fmt: str | None,
    ref: str | None,
) -> None:
    """Search the docs index with BM25 ranking (AND, then NEAR, then OR).

    With --path, --ext, --tag, --since, --exhaustive, --page-size, --cursor or --format the
    query is read in the query language (docs/query-language.md) and answered a page at a
    time, as the search MCP tool does.

    \b
    Examples:
      kenso-git search "deployment pipeline"
      kenso-git search retries --category payments --limit 10
      kenso-git search "pre-commit hooks" --json | jq '.[0].file_path'
      kenso-git search 'tag:auth token' --path docs/api --since 7d --format tsv
      kenso-git search 're:"v[0-9]+"' --exhaustive --format json

    With --ref REV the answer is computed over the docs as they are in commit REV (anything
    `git rev-parse` takes), paths as at REV, without touching the work tree, git's index or
    HEAD (docs/history.md).

    Docs changed since the index last looked are synced first (a few ms when none did);
    --no-sync, or query-sync = false, answers from the index as it is.

    Exit codes: 0 ok (also when nothing matched), 2 bad usage, 3 no index yet.
    """
    kb = KnowledgeBase.open(Path.cwd(), db=db_path)
    if no_sync:
        kb.settings = kb.settings._replace(query_sync=False)
    with contextlib.ExitStack() as stack:
        if ref is not None:  # the docs as at REV: a copy of the index, gone after the answer
            from kenso_git.api.revision import at_revision

            kb, _revision = stack.enter_context(at_revision(kb, ref))
        _answer(
            kb,
            ref is None,
            query,
            limit,
            category,
            as_json,
            color,
            exhaustive,
            page_size,
            cursor,
            fmt,
            (path, ext, tag, since),
        )


def _answer(
    kb: KnowledgeBase,
    dated: bool,
    query: str,
    limit: int | None,
    category: str | None,
    as_json: bool,
    color: str,
    exhaustive: bool,
    page_size: int | None,
    cursor: str | None,
    fmt: str | None,
    filters: tuple[str | None, str | None, str | None, str | None],
) -> None:
    path, ext, tag, since = filters
    agent = (path, ext, tag, since, page_size, cursor, fmt)
    if not exhaustive and all(value is None for value in agent):
        text = search_text(
            kb, query, limit=limit, category=category, as_json=as_json, color=color, dated=dated
        )
        sys.stdout.write(text + "\n")
        return
    from kenso_git.api.search import SearchRequest

    if category:
        query = f'{query} category:"{category}"'
    from kenso_git.cli.plaintext import checked_page_size

    request = SearchRequest(
        query,
        page_size=checked_page_size(page_size),
        cursor=cursor,
        mode="exhaustive" if exhaustive else "ranked",
        path=path,
        ext=ext,
        modified_after=since,
        tags=(tag,) if tag else (),
    )
    page = kb.agent_search(request)
    stale_notice(kb)
    shape = fmt or ("json" if as_json else "text")
    if dated and shape == "json":
        kb.date_hits(page["results"], "path")  # each hit's age, as the search tool gives it
    sys.stdout.write(_render(page, shape))


def _render(page: AgentPage, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(page, indent=2, ensure_ascii=False) + "\n"
    if fmt == "tsv":
        return "".join(
            f"{tsv_field(h['path'])}\t{h['score']}\t{tsv_field(h['snippet'])}\n"
            for h in page["results"]
        )
    lines = []
    for hit in page["results"]:
        where = f":{hit['line']}" if "line" in hit else ""
        shown = shown_path(hit["path"])
        lines.append(f"{shown}{where}  {hit['score']}  {hit['title'] or ''}".rstrip())
        lines.append(f"    {hit['snippet']}")
    bound = "+" if page["total_is_lower_bound"] else ""
    lines.append(f"{page['returned']} of {page['total']}{bound} hits ({page['mode']})")
    if page["next_cursor"]:
        lines.append(f"next page: --cursor {page['next_cursor']}")
    return "\n".join(lines) + "\n"
