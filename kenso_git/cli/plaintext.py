"""What `kenso-git search` and `kenso-git sync` print: shared by the click commands and the
entry's click-free fast paths, so both print the same thing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.cli.options import SEARCH_LIMIT
from kenso_git.cli.output import Style
from kenso_git.cli.output import plural
from kenso_git.cli.output import shown_path
from kenso_git.cli.output import use_color

if TYPE_CHECKING:
    from kenso_git.api.git import EarlyStatus
    from kenso_git.api.workspace import Workspace
    from kenso_git.kb import KnowledgeBase

_STAGE_STYLE = {"AND": "bold_green", "NEAR": "bold_blue", "OR": "bold_yellow"}
_RELEVANCE_STYLE = {"high": "green", "medium": "yellow", "low": "red"}


def search_text(
    kb: KnowledgeBase,
    query: str,
    *,
    limit: int | None,
    category: str | None,
    as_json: bool,
    color: str,
    dated: bool = True,
) -> str:
    """The output of one search, without its final newline: the `search_docs` JSON array
    with `as_json` (each hit's `last_commit` unless not `dated`: an answer at another
    revision, as the tool gives it), else the ranked hits with their section and highlight.
    `limit`: the user's --limit, None when none was given."""
    if not query.strip():  # a usage error, as over MCP (kenso printed {"error"} with exit 0)
        from kenso_git.errors import EmptyQueryError

        raise EmptyQueryError()
    limit = _checked_limit(kb, limit)
    if ":" in query:  # the query language's filters are `name:value`
        _note_unread_filters(query)
    if as_json:
        import json

        payload = kb.search_docs(query, category=category, limit=limit)
        stale_notice(kb)
        items = payload if isinstance(payload, list) else payload["results"]
        if not items:
            _check_category(kb, category)
        if dated:
            kb.date_hits(items, "file_path")  # each hit's age, as the MCP tool gives it
        return json.dumps(payload, indent=2, ensure_ascii=False)
    result = kb.search(query, category=category, limit=limit)
    stale_notice(kb)
    if not result.hits:
        _check_category(kb, category)
    style = Style(use_color(color, sys.stdout))
    hits = result.hits
    noun = "result" if len(hits) == 1 else "results"
    lines = [f'{style("kenso-git", "bold")} · {len(hits)} {noun} for "{query}"']
    if result.corrected_query:
        lines.append(f'  (showing results for "{result.corrected_query}")')
    if result.searched_words:
        lines.append(
            f"  (a long question: searched by its first {result.searched_words} words that "
            "are neither stop words nor repeats)"
        )
    if not hits:
        lines.append("  no results: try fewer or broader words, or `kenso-git stats`")
        return "\n".join(lines)
    lines.append("")
    for hit in hits:
        stage = (
            f"  {style(hit.cascade_stage, _STAGE_STYLE[hit.cascade_stage])}"
            if hit.cascade_stage
            else ""
        )
        relevance = style(hit.relevance, _RELEVANCE_STYLE.get(hit.relevance, "dim"))
        lines.append(f"{hit.score:.2f}  {shown_path(hit.file_path)}{stage}  {relevance}")
        lines.append(f"      {hit.section_path or hit.title}")
        if hit.highlight:  # one line: a page without sections gives several
            lines.append(f"      {style.marks(' '.join(hit.highlight.split()))}")
        lines.append("")
    return "\n".join(lines)


def _note_unread_filters(query: str) -> None:
    """A plain search answers as kenso's `search_docs` does, so `in:docs` in its query is two
    words, not a filter: say so on stderr, with the way to apply it, rather than let an
    answer from outside the folder pass for a filtered one (stdout keeps its shape)."""
    from kenso_git.api.search import parse
    from kenso_git.cli.options import AGENT_SEARCH_OPTIONS
    from kenso_git.cli.options import spoken_flags
    from kenso_git.errors import UsageError

    try:
        filters = parse(query).filters
    except UsageError:  # not the query language's: nothing in it is read as a filter anyway
        return
    if filters:
        names = list(dict.fromkeys(f"`{f.name}:`" for f in filters))
        verb = "is" if len(names) == 1 else "are"
        sys.stderr.write(
            f"kenso-git: note: {', '.join(names)} in the query {verb} searched as words here; "
            f"the query language reads filters only with {spoken_flags(AGENT_SEARCH_OPTIONS)} "
            "(add --format text, say)\n"
        )


def stale_notice(kb: KnowledgeBase) -> None:
    """Say on stderr that the answer came from an index that may be stale, and why: the
    query-time sync gave up, failed or could not run (#26). stdout keeps kenso's shape."""
    fresh = kb.freshness
    if fresh is not None and fresh.stale:
        sys.stderr.write(f"kenso-git: stale: {fresh.reason or 'the index may be out of date'}\n")


def _check_category(kb: KnowledgeBase, category: str | None) -> None:
    """Nothing matched: when no indexed document has `category` at all, say so (exit 2)
    and name the ones there are, instead of a bare "0 results" (#26)."""
    from kenso_git.api.search import category_filter
    from kenso_git.api.search import known_categories
    from kenso_git.api.search import unknown_category_error

    wanted = category_filter(category)
    if wanted is None:
        return
    known = kb.read(known_categories)
    if wanted not in known:
        raise unknown_category_error(wanted, known)


def _checked_limit(kb: KnowledgeBase, limit: int | None) -> int:
    """`limit` within 1..search-limit-max, saying so on stderr when it had to be changed;
    no --limit (None): the default within search-limit-max, said nowhere (nobody asked
    for 5 results when search-limit-max is 3)."""
    top = kb.settings.search_limit_max
    if limit is None:
        return min(SEARCH_LIMIT, top)
    used = max(1, min(limit, top))
    if used != limit:
        sys.stderr.write(f"kenso-git: --limit {limit} is outside 1..{top}; showing {used}\n")
    return used


PAGE_SIZES = (1, 50)  # search.pagination's MIN_PAGE and MAX_PAGE (a test holds them equal)


def checked_page_size(page_size: int | None, flag: str = "--page-size") -> int | None:
    """`--page-size` (or the `flag` that gave it) within 1..50, saying so on stderr when it
    had to be changed (as `--limit` does); None stays None (the default page)."""
    if page_size is None:
        return None
    low, high = PAGE_SIZES
    used = max(low, min(page_size, high))
    if used != page_size:
        sys.stderr.write(
            f"kenso-git: {flag} {page_size} is outside {low}..{high}; showing {used}\n"
        )
    return used


def sync_text(
    *,
    as_json: bool,
    quiet: bool,
    db_path: str | None,
    workspace: Workspace | None = None,
    early: EarlyStatus | None = None,
) -> str | None:
    """Sync the index of the work tree around the current folder (`workspace`, when the
    caller found it already); the text to print. `early`: its first `git status`, already
    started (`gitstatus.start_status`)."""
    from kenso_git.cli.output import finish_progress
    from kenso_git.cli.output import progress_printers
    from kenso_git.kb import KnowledgeBase

    kb = (
        KnowledgeBase.open(Path.cwd(), db=db_path)
        if workspace is None
        else KnowledgeBase.of_workspace(workspace, db=db_path)
    )
    progress, warn = progress_printers()
    report = kb.sync(progress=progress, warn=warn, early=early)
    finish_progress()
    counts = {s: report.count(s) for s in ("ingested", "unchanged", "skipped", "removed", "error")}
    if as_json:
        import json

        counts["errors"] = counts.pop("error")  # the key `ingest --json` uses
        data: dict[str, object] = {"scope": report.scope, "head": report.head, **counts}
        data["elapsed_s"] = round(report.elapsed, 4)
        return json.dumps(data, indent=2)
    if not quiet or report.changed:
        return (
            f"kenso-git · synced {plural(report.total, 'file')} · "
            f"{counts['ingested']} updated · "
            f"{counts['removed']} removed · {counts['unchanged']} unchanged "
            f"({report.elapsed * 1000:.0f} ms)"
        )
    return None
