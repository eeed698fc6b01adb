"""`kenso-git search`: query the index from the terminal (never creates an index)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import click

from kenso_git.cli.click_options import options
from kenso_git.cli.options import AGENT_SEARCH_OPTIONS
from kenso_git.cli.options import SEARCH_OPTIONS
from kenso_git.cli.options import spoken_flags
from kenso_git.cli.output import shown_path
from kenso_git.cli.output import tsv_field
from kenso_git.cli.plaintext import search_text
from kenso_git.cli.plaintext import stale_notice
from kenso_git.errors import ScopeError
from kenso_git.errors import UsageError
from kenso_git.errors import shown
from kenso_git.kb import KnowledgeBase

if TYPE_CHECKING:
    from collections.abc import Callable

    from kenso_git.api.results import AgentPage
    from kenso_git.api.search import ArgumentValueError

HINT_INSIDE = "give a folder inside it, repo-relative or from the current folder"


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

    --path takes a folder or a file as a shell does: from the current folder (`.`, `./guide`,
    `../notes`), absolute, or repo-relative as a search result prints it. A path outside the
    repository, or one that .gitignore, .cursorignore, .kensoignore or `exclude` ignores (no
    doc under it is indexed), is an error, as it is for the search MCP tool.

    Exit codes: 0 ok (also when nothing matched), 2 bad usage, 3 no index yet.
    """
    kb = KnowledgeBase.open(Path.cwd(), db=db_path)
    if no_sync:
        kb.settings = kb.settings._replace(query_sync=False)
    if exhaustive or any(v is not None for v in (path, ext, tag, since, page_size, cursor, fmt)):
        path = _checked_paths(kb, query, path, at_ref=ref is not None)
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


def _checked_paths(kb: KnowledgeBase, query: str, path: str | None, *, at_ref: bool) -> str | None:
    """`--path` as the repo-relative folder the query language takes, after the scope gate
    the MCP search applies (the user's view: ignore rules, not `agent-scoped-roots`); the
    query's `in:` filters are checked as the tool checks them.

    Raises:
        UsageError: `--path` is outside the repository, or a path is refused (ignored...).
        QuerySyntaxError: the query does not parse.
    """
    from kenso_git.api.search import parse
    from kenso_git.api.search import scope_for

    scope = scope_for(kb.workspace, kb.settings._replace(agent_scoped_roots=()))
    git = kb.workspace.is_git
    check = scope.resolve_as_written if at_ref else scope.resolve
    for given in parse(query).of("in"):
        _gated(check, given.value, "in: filter", f"in:{shown(given.value)}", scope.root, git)
    if path is None:
        return None
    rel = _from_here(path, scope.root)
    return _gated(check, rel, "--path", f"--path {shown(path)}", scope.root, git)


def _from_here(path: str, root: Path) -> str:
    """`path` repo-relative, read as a shell reads it: from the current folder (absolute as
    given). A search result's path (repo-relative) is read from the root: from a subfolder,
    when it names nothing there but something from the root; from outside the work tree
    (`--db` from elsewhere), when it is written as one (not absolute, not led by `.` or
    `..`) and names something from the root or nothing from the current folder.

    Raises:
        UsageError: the path is outside the repository.
    """
    here = Path.cwd()
    rel = _within(Path(os.path.normpath(here / path)), root)
    if rel is not None and (here == root or os.path.lexists(root / rel)):
        return rel
    inside = here.is_relative_to(root)
    if inside or _written_as_printed(path):
        printed = _within(Path(os.path.normpath(root / path)), root)
        if printed is not None and (
            os.path.lexists(root / printed) or not (inside or os.path.lexists(here / path))
        ):
            return printed
    if rel is None:
        raise UsageError(
            f"--path {shown(path)} is outside the repository ({root})", hint=HINT_INSIDE
        )
    return rel


def _written_as_printed(path: str) -> bool:
    """Whether `path` may be a search result's path: relative, and not led by `.` or `..`
    (a shell reads `.`, `./x` and `../x` from the current folder, and so does `--path`)."""
    return not os.path.isabs(path) and path.split("/", 1)[0] not in (".", "..")


def _within(full: Path, root: Path) -> str | None:
    """`full` (absolute, normalised) relative to `root`, also when it names the work tree
    through a symbolic link (`$PWD` may); None when it is outside."""
    if full.is_relative_to(root):
        return full.relative_to(root).as_posix()
    for top in full.parents:
        if Path(os.path.realpath(top)) == root:
            return full.relative_to(top).as_posix()
    return None


def _gated(
    check: Callable[[str], str], path: str, flag: str, label: str, root: Path, git: bool
) -> str:
    """`check(path)`, a refusal told as a usage error of `flag` (named `label` as given);
    `root`: the work tree `path` is relative to (`git`: a git work tree, not a plain folder)."""
    try:
        return check(path)
    except ScopeError as err:
        if err.rule == "ignored":
            raise UsageError(
                f"{label} is ignored by .gitignore, .cursorignore, .kensoignore or `exclude`, "
                "so it holds no indexed doc",
                hint="name a folder whose docs are indexed, or search without it "
                "(`git check-ignore -v PATH` names a git rule)",
            ) from None
        if err.rule == "outside-root":
            raise UsageError(f"{label} is outside the repository", hint=HINT_INSIDE) from None
        if err.rule == "nested-repo":
            # from a plain folder there is no "other" repository: the path is in the only one
            said = (
                f"{label} is inside another repository (a nested repository or a submodule), "
                "whose docs this index does not hold"
                if git
                else f"{label} is inside a git repository, whose docs the index of {root} "
                "(a folder in no repository) does not hold"
            )
            raise UsageError(
                said,
                hint=_nested_hint(root, path),
            ) from None
        raise UsageError(f"{flag}: {err.message}") from None


def _nested_hint(root: Path, path: str) -> str:
    """Where the docs of the nested repository holding `path` are searched: from inside
    it, or by its own index."""
    import shlex

    from kenso_git.api.git import is_nested_repository

    parts = PurePosixPath(path).parts
    folders = [root.joinpath(*parts[: n + 1]) for n in range(len(parts))]
    top = next((f for f in reversed(folders) if is_nested_repository(str(f))), None)
    if top is None:  # reached through a symbolic link: name no folder
        return "search that repository from inside it, where its own index is"
    here = os.path.relpath(top, Path.cwd())
    return (
        f"search that repository from inside it (`cd {shlex.quote(here)}`), or with "
        f"`--db {shlex.quote(os.path.join(here, '.kenso', 'docs.db'))}` (`kenso-git ingest` "
        "there first)"
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

    # `-n` is the page's size here: the page is what is shown
    if limit is not None and page_size is not None and page_size != limit:
        others = spoken_flags(AGENT_SEARCH_OPTIONS, leaving_out="--page-size")
        raise UsageError(
            f"--limit {limit} and --page-size {page_size} disagree: with {others} both set "
            "the page's size",
            hint="give one of them",
        )
    if category:
        query = f'{query} category:"{category}"'
    from kenso_git.cli.plaintext import checked_page_size

    size, flag = (limit, "--limit") if page_size is None else (page_size, "--page-size")
    request = SearchRequest(
        query,
        page_size=checked_page_size(size, flag),
        cursor=cursor,
        mode="exhaustive" if exhaustive else "ranked",
        path=path,
        ext=ext,
        modified_after=since,
        tags=(tag,) if tag else (),
    )
    from kenso_git.api.search import ArgumentValueError
    from kenso_git.api.search import check_at_revision

    if not dated:  # at a revision: no file times to filter by
        check_at_revision(request)
    try:
        page = kb.agent_search(request)
    except ArgumentValueError as err:
        raise _as_flag(kb, err, since) from None
    stale_notice(kb)
    shape = fmt or ("json" if as_json else "text")
    if dated and shape == "json":
        kb.date_hits(page["results"], "path")  # each hit's age, as the search tool gives it
    sys.stdout.write(_render(page, shape))


_FLAGS = {"path": "--path", "ext": "--ext", "modified_after": "--since", "tag": "--tag"}
SINCE_HINT = (
    "give a time window such as --since 7d or --since 12h, or a date such as "
    "--since 2026-01-31; a revision goes to --ref REV (the docs as at that commit) or to "
    "`kenso-git changed --since REV` (the docs changed since it)"
)


def _as_flag(kb: KnowledgeBase, err: ArgumentValueError, since: str | None) -> UsageError:
    """`err` (named after the search tool's argument) told of the option the user typed:
    a `--since` that names a commit (`HEAD~2`, as `changed --since` takes) says so, and
    where a revision goes."""
    flag = _FLAGS.get(err.argument, err.argument)
    if err.argument != "modified_after" or since is None:
        return UsageError(f"{flag} {err.problem}", hint=err.hint)
    from kenso_git.api.git import history
    from kenso_git.errors import KensoError

    try:
        history.resolve_revision(kb.workspace, since)
    except KensoError:
        return UsageError(f"--since {err.problem}", hint=SINCE_HINT)
    return UsageError(
        f"--since {shown(since)} names a commit, but search's --since is a time window "
        "(docs modified within it)",
        hint=f"the docs as at that commit: --ref {since}; the docs changed since it: "
        f"`kenso-git changed --since {since}`",
    )


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
