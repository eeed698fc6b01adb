"""Hostile tool arguments get a clear refusal naming the cap, never a crash or a long stall."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.config import load_settings
from kenso_git.errors import QueryError
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.ignore import MAX_CACHED_FOLDERS
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.scope import MAX_PATH_DEPTH
from kenso_git.repo.workspace import find_workspace
from kenso_git.search.ranked.query import MAX_QUERY_CHARS
from kenso_git.search.ranked.query import MAX_QUERY_TERMS
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio


async def _call(root: Path, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    return bool(result.is_error), json.loads(result.content[0].text)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("payment " * (MAX_QUERY_CHARS // 8 + 1), str(MAX_QUERY_CHARS)),
        ("x" * 1_000_000, str(MAX_QUERY_CHARS)),
        ("pay\x00ment", "NUL"),
    ],
)
async def test_search_tools_refuse_hostile_queries(repo: Path, query: str, named: str) -> None:
    is_error, body = await _call(repo, "search_docs", {"query": query})
    assert is_error and named in body["error"]
    is_error, body = await _call(repo, "search_multi", {"queries": ["payment", query]})
    assert is_error and named in body["error"]


async def test_search_tools_answer_a_question_over_the_word_cap(repo: Path) -> None:
    # searched by its first MAX_QUERY_TERMS distinct content words, at the cap's cost
    question = " ".join(f"payment{i} retries" for i in range(MAX_QUERY_TERMS))
    is_error, body = await _call(repo, "search_docs", {"query": question})
    assert not is_error and isinstance(body, list)
    is_error, body = await _call(repo, "search_multi", {"queries": ["payment", question]})
    assert not is_error


async def test_the_search_tool_answers_a_long_question_and_gates_every_filter(
    scoped_repo: Path,
) -> None:
    """The `search` tool's own check of its `in:` filters parsed the query at the word cap,
    so over MCP a question of more than 64 words was refused ("more than 64 words and
    filters"), phrase or not, though the library answered it. Every `in:` filter, however
    far into the question, is still judged by the scope gate."""
    tail = " ".join(f"billing{i} retries policy" for i in range(30))
    question = "Billing retries and settlement for the payment service " + tail
    for asked in (question, '"exponential backoff" ' + question):
        is_error, body = await _call(scoped_repo, "search", {"query": asked})
        assert not is_error, body
        paths = [hit["path"] for hit in body["results"]]
        assert paths[:1] == ["docs/billing.md"] and all(p.startswith("docs/") for p in paths)
    for escape in ("in:private", "in:../etc", "in:ignored"):
        is_error, body = await _call(scoped_repo, "search", {"query": f"{question} {escape}"})
        assert is_error, escape
        shown = json.dumps(body).lower()
        assert "roadmap" not in shown and "plan.md" not in shown and "notes.md" not in shown


def test_the_library_raises_a_query_error_naming_the_cap(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    with pytest.raises(QueryError, match=str(MAX_QUERY_CHARS)):
        kb.search_docs("q" * (MAX_QUERY_CHARS + 1))
    assert kb.search_docs("w " * MAX_QUERY_TERMS) == []  # at the cap: an ordinary search


@pytest.mark.parametrize("tool", ["get_doc", "get_related", "read_snippet"])
async def test_deep_paths_are_refused_naming_the_depth_cap(repo: Path, tool: str) -> None:
    args: dict[str, Any] = {"path": "a/" * 2000 + "x.md"}
    if tool == "read_snippet":
        args["query"] = ""
    is_error, body = await _call(repo, tool, args)
    assert is_error
    assert "too-deep" in json.dumps(body) and str(MAX_PATH_DEPTH) in json.dumps(body)


def test_ignore_caches_stay_bounded_under_many_distinct_folders(repo: Path) -> None:
    ws = find_workspace(repo)
    rules = IgnoreRules.for_workspace(ws, load_settings(ws.root))
    for i in range(MAX_CACHED_FOLDERS + 50):
        rules.is_ignored(f"docs/f{i}/x.md")
    assert len(rules._chain_cache) <= MAX_CACHED_FOLDERS
    assert len(rules._folder_cache) <= MAX_CACHED_FOLDERS
    assert rules.is_ignored("ignored/notes.md") and not rules.is_ignored("docs/deploy.md")


async def test_no_index_messages_do_not_reveal_the_host_path(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    answers = [await _call(root, tool, {}) for tool in ("health_check", "index_state")]
    answers.append(await _call(root, "read_snippet", {"path": "docs/deploy.md", "query": ""}))
    text = json.dumps(answers)
    assert ".kenso/docs.db" in text
    assert str(tmp_path) not in text
