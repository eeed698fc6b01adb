"""Hostile tool arguments get a clear refusal naming the cap, never a crash or a long stall."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.errors import QueryError
from kenso_git.kb import KnowledgeBase
from kenso_git.search.query import MAX_QUERY_CHARS
from kenso_git.search.query import MAX_QUERY_TERMS
from kenso_git.serve.server import build_server
from kenso_git.serve.service import Service

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _call(root: Path, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    return bool(result.is_error), json.loads(result.content[0].text)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("payment " * (MAX_QUERY_CHARS // 8 + 1), str(MAX_QUERY_CHARS)),
        ("x" * 1_000_000, str(MAX_QUERY_CHARS)),
        ("a " * (MAX_QUERY_TERMS + 1), str(MAX_QUERY_TERMS)),
        ("pay\x00ment", "NUL"),
    ],
)
async def test_search_tools_refuse_hostile_queries(repo: Path, query: str, named: str) -> None:
    is_error, body = await _call(repo, "search_docs", {"query": query})
    assert is_error and named in body["error"]
    is_error, body = await _call(repo, "search_multi", {"queries": ["payment", query]})
    assert is_error and named in body["error"]


def test_the_library_raises_a_query_error_naming_the_cap(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    with pytest.raises(QueryError, match=str(MAX_QUERY_CHARS)):
        kb.search_docs("q" * (MAX_QUERY_CHARS + 1))
    assert kb.search_docs("w " * MAX_QUERY_TERMS) == []  # at the cap: an ordinary search
