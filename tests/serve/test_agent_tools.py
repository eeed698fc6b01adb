"""The agent surface's search, regex_search and find_related tools through the SDK client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest

pytestmark = pytest.mark.anyio


async def call(root: Path, tool: str, args: dict[str, Any]) -> tuple[Any, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    return result, json.loads(result.content[0].text)


async def test_search_pages_through_hits_with_the_seed_shape(repo: Path) -> None:
    result, page = await call(repo, "search", {"query": "payment", "page_size": 1})
    assert not result.is_error
    assert result.structured_content == page
    keys = "results total total_is_lower_bound mode returned page_size next_cursor has_more"
    assert set(keys.split()) | {"token_budget", "as_of"} == set(page)
    assert page["returned"] == 1 and page["has_more"] and page["total"] == 3
    seen = [page["results"][0]["path"]]
    while page["has_more"]:
        _, page = await call(
            repo, "search", {"query": "payment", "page_size": 1, "cursor": page["next_cursor"]}
        )
        seen += [h["path"] for h in page["results"]]
    assert sorted(seen) == ["docs/billing.md", "docs/deploy.md", "private/plan.md"]


async def test_search_and_regex_search_never_leave_the_scope(scoped_repo: Path) -> None:
    _, page = await call(scoped_repo, "search", {"query": "payment", "mode": "exhaustive"})
    assert [h["path"] for h in page["results"]] == ["docs/billing.md", "docs/deploy.md"]
    _, page = await call(scoped_repo, "search", {"query": "ext:md", "page_size": 50})
    assert all(h["path"].startswith("docs/") for h in page["results"])
    _, page = await call(scoped_repo, "regex_search", {"pattern": "(?i)payment"})
    assert {h["path"] for h in page["results"]} == {"docs/billing.md", "docs/deploy.md"}
    for tool, args in (
        ("search", {"query": "roadmap", "path": "private"}),
        ("search", {"query": 'roadmap in:"private"'}),
        ("search", {"query": "roadmap in:../x"}),
        ("regex_search", {"pattern": "roadmap", "path": "private"}),
    ):
        result, body = await call(scoped_repo, tool, args)
        assert result.is_error, (tool, args)
        assert body["rule"] in {"outside-scope", "parent-traversal"}


async def test_a_bad_query_or_pattern_is_a_tool_error_naming_it(repo: Path) -> None:
    result, body = await call(repo, "search", {"query": "deploy size:big"})
    assert result.is_error and "'size:big' at column 8" in body["error"] and body["hint"]
    result, body = await call(repo, "regex_search", {"pattern": "(a)\\1"})
    assert result.is_error and "refused by RE2" in body["error"]
    result, body = await call(repo, "search", {"query": "deploy", "cursor": "k1-1-deadbeef"})
    assert result.is_error and "cursor" in body["error"]


async def test_regex_search_hits_carry_line_numbers(repo: Path) -> None:
    result, page = await call(repo, "regex_search", {"pattern": r"canary \w+ alpha"})
    assert not result.is_error
    (hit,) = page["results"]
    assert (hit["path"], hit["line"], hit["section"]) == ("docs/deploy.md", 12, "Release steps")
    assert hit["snippet"].startswith("Run the pipeline") and hit["match_type"] == "Regex"


def _private_deploy(root: Path) -> Path:
    (root / "private" / "deploy.md").write_text(
        "# Private deploy\n\nThe secret [deploy guide](../docs/deploy.md) for the vault, "
        "with enough words for the index.\n",
        encoding="utf-8",
    )
    ingest(root)
    return root


async def test_find_related_follows_links_both_ways_and_names_why(repo: Path) -> None:
    result, page = await call(_private_deploy(repo), "find_related", {"path": "docs/deploy.md"})
    assert not result.is_error and result.structured_content == page
    assert [(i["path"], i["why"]) for i in page["results"]] == [
        ("private/deploy.md", ["linked_from", "same_stem"]),
        ("docs/billing.md", ["relates_to", "same_folder"]),
    ]
    result, body = await call(repo, "find_related", {"path": "docs/none.md"})
    assert result.is_error and "no document at docs/none.md" in body["error"]


async def test_find_related_never_reveals_out_of_scope_docs(scoped_repo: Path) -> None:
    root = _private_deploy(scoped_repo)
    _, page = await call(root, "find_related", {"path": "docs/deploy.md", "page_size": 1})
    assert [i["path"] for i in page["results"]] == ["docs/billing.md"]
    assert page["total"] == 1 and page["has_more"] is False and page["next_cursor"] is None
    for args in ({"path": "private/deploy.md"}, {"path": "../docs/deploy.md"}):
        result, body = await call(root, "find_related", args)
        assert result.is_error and body["rule"] in {"outside-scope", "parent-traversal"}
