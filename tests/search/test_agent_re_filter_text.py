"""`re:` reads the text `regex_search` greps (#49): the whole file, frontmatter and H1 title
line too, as the work tree holds it through the scope gate, or at a revision (`ref`) as
that revision holds it. It read the indexed text only (the chunks, no frontmatter, no H1
line): `re:"Deploy Guide"` answered total 0, claimed exact, beside a `regex_search` hit.
Through the real MCP SDK client, and the library API the command line calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.api.revision import at_revision
from kenso_git.api.search import SearchRequest
from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.querylang import FIELDS
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

DEPLOY = """---
title: Deploy Guide
tags: [deploy, release]
relates_to:
  - path: docs/rollback.md
    relation: feeds_into
---
# Deploy Guide

How the payment service goes from a merged pull request to production.

## Canary checks

The canary is promoted when its error rate stays under 0.1%.
"""
ROLLBACK = "# Rollback\n\nHow a release is rolled back when its canary fails.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {"docs/deploy.md": DEPLOY, "docs/rollback.md": ROLLBACK}
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    body: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert not result.is_error, body
    return body


def _paths(body: dict[str, Any]) -> list[str]:
    return sorted({hit["path"] for hit in body["results"]})


async def _re_pages(client: Client, pattern: str, **extra: Any) -> list[dict[str, Any]]:
    query = {"query": f're:"{pattern}"', **extra}
    return [
        await _call(client, "search", query),
        await _call(client, "search", {**query, "mode": "exhaustive"}),
        await _call(client, "search", {**query, "query": f're:"{pattern}" canary'}),
    ]


@pytest.mark.parametrize(
    "pattern",
    [
        "Deploy Guide",  # the H1 title line (before: total 0, claimed exact)
        "^# Deploy Guide$",
        "feeds_into",  # the frontmatter
        "^title: Deploy",
        "Canary checks",  # an H2 heading, in the body
        "payment service",
    ],
)
async def test_re_matches_the_lines_regex_search_greps(repo: Path, pattern: str) -> None:
    meaning = next(f.meaning for f in FIELDS if f.name == "re")
    assert "the one `regex_search` greps" in meaning and "frontmatter and H1 title" in meaning
    async with Client(build_server(Service(repo))) as client:
        grep = await _call(client, "regex_search", {"pattern": pattern})
        pages = await _re_pages(client, pattern)
    assert _paths(grep) == ["docs/deploy.md"]
    for page in pages:
        assert _paths(page) == ["docs/deploy.md"], page
        assert page["total"] == 1 and not page["total_is_lower_bound"]


async def test_re_reads_the_work_tree_file_the_gate_lets_through(repo: Path) -> None:
    # the file as the work tree holds it: a page edited (query-time sync on) is read anew
    (repo / "docs" / "rollback.md").write_text(
        "---\nowner: sre-oncall\n---\n" + ROLLBACK, encoding="utf-8"
    )
    async with Client(build_server(Service(repo))) as client:
        grep = await _call(client, "regex_search", {"pattern": "sre-oncall"})
        pages = await _re_pages(client, "sre-oncall")
    assert _paths(grep) == ["docs/rollback.md"]
    assert [_paths(p) for p in pages] == [["docs/rollback.md"]] * 3


async def test_re_never_reads_a_doc_cursorignore_hid_after_indexing(repo: Path) -> None:
    # query-sync off: the index still holds the page; the gate hides it, so `re:` never
    # reads its file (nor its indexed text) and regex_search does not either
    (repo / ".kenso.toml").write_text("query-sync = false\n", encoding="utf-8")
    (repo / ".cursorignore").write_text("docs/deploy.md\n", encoding="utf-8")
    async with Client(build_server(Service(repo))) as client:
        grep = await _call(client, "regex_search", {"pattern": "Deploy Guide"})
        pages = await _re_pages(client, "Deploy Guide")
        pages += await _re_pages(client, "Deploy Guide", ref="HEAD")
        canary = await _re_pages(client, "canary")
    assert _paths(grep) == []
    for page in pages:
        assert _paths(page) == [] and page["total"] == 0, page
    assert all(_paths(p) == ["docs/rollback.md"] for p in canary)


async def test_re_at_a_revision_reads_its_blob_not_the_work_tree(repo: Path) -> None:
    # HEAD says feeds_into; the work tree (synced) says drains_into
    (repo / "docs" / "deploy.md").write_text(
        DEPLOY.replace("feeds_into", "drains_into"), encoding="utf-8"
    )
    KnowledgeBase.open(repo).sync()
    async with Client(build_server(Service(repo))) as client:
        then = await _re_pages(client, "feeds_into", ref="HEAD")
        gone = await _re_pages(client, "drains_into", ref="HEAD")
        now = await _re_pages(client, "drains_into")
        title = await _re_pages(client, "^# Deploy Guide$", ref="HEAD")
    for page in [*then, *now, *title]:
        assert _paths(page) == ["docs/deploy.md"] and page["total"] == 1, page
    for page in gone:
        assert _paths(page) == [] and page["total"] == 0, page


def test_re_at_a_revision_through_the_library_as_the_command_line_asks(repo: Path) -> None:
    # `kenso-git search --ref REV`: a copy of the index for REV, searched without a gate
    (repo / "docs" / "deploy.md").write_text(
        DEPLOY.replace("feeds_into", "drains_into"), encoding="utf-8"
    )
    git(repo, "commit", "-qam", "drains")
    kb = KnowledgeBase.open(repo)
    kb.sync()
    with at_revision(kb, "HEAD~1") as (at, _revision):
        for mode in ("ranked", "exhaustive"):
            then = at.agent_search(SearchRequest('re:"feeds_into"', mode=mode))
            later = at.agent_search(SearchRequest('re:"drains_into"', mode=mode))
            assert [h["path"] for h in then["results"]] == ["docs/deploy.md"]
            assert later["results"] == [] and later["total"] == 0
    now = kb.agent_search(SearchRequest('re:"drains_into"', mode="exhaustive"))
    assert [h["path"] for h in now["results"]] == ["docs/deploy.md"]


async def test_re_reads_a_doc_indexed_through_a_link_at_its_approved_path(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"guides/real.md": DEPLOY, "docs/rollback.md": ROLLBACK}
    root = init_repo(tmp_path / "repo", files)
    (root / "docs" / "linked.md").symlink_to("../guides/real.md")
    KnowledgeBase.open(root).ingest()
    async with Client(build_server(Service(root))) as client:
        grep = await _call(client, "regex_search", {"pattern": "feeds_into"})
        pages = await _re_pages(client, "feeds_into")
    assert _paths(grep) == ["docs/linked.md", "guides/real.md"]
    for page in pages:
        assert _paths(page) == _paths(grep), page
