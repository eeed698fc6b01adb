"""An integer argument below its tool's range is an error naming the argument and the range,
on every door, and a float is an integer only while it stands for one.

Before, `get_doc` with `max_length` 0, -1 or -100 returned the whole document, and the
other integers were clamped without a word (`limit` -5 gave one hit, `depth` -5 acted as
1, `max_tokens` -5 became 32); `1e308` was taken as an integer. A value above the range is
still read as its most, as each tool's description says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.search.graph.related import MAX_DEPTH
from kenso_git.search.graph.related import MIN_DEPTH
from kenso_git.search.pagination import MAX_PAGE
from kenso_git.search.pagination import MIN_PAGE
from kenso_git.search.snippet import MAX_TOKENS
from kenso_git.search.snippet import MIN_TOKENS
from kenso_git.serve.caps import GET_DOC_MAX_CHARS
from kenso_git.serve.history import MAX_CHANGES
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.mcp import tools
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import KENSO_EXE
from tests.serve.rpc import server_env
from tests.serve.test_routes import _events_request

pytestmark = pytest.mark.anyio

DOC = "docs/deploy.md"
HINT = "call {} again with {} in that range, or without it for its default"
# (tool, arguments, the error's text after "bad arguments for TOOL: ")
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    *[
        (
            "get_doc",
            {"path": DOC, "max_length": n},
            f"max_length should be 1 to 40,000 (a larger value is read as 40,000), not {n}",
        )
        for n in (0, -1, -100)
    ],
    ("search_docs", {"query": "deploy", "limit": -5}, "limit should be at least 1, not -5"),
    ("search_multi", {"queries": ["deploy"], "limit": 0}, "limit should be at least 1, not 0"),
    (
        "get_related",
        {"path": DOC, "depth": -5},
        "depth should be 1 to 3 (a larger value is read as 3), not -5",
    ),
    *[
        (
            "read_snippet",
            {"path": DOC, "query": "canary", "max_tokens": n},
            f"max_tokens should be 32 to 1,024 (a larger value is read as 1,024), not {n}",
        )
        for n in (-5, 31)
    ],
    *[
        (
            tool,
            {**args, field: 0},
            f"{field} should be 1 to 50 (a larger value is read as 50), not 0",
        )
        for tool, args, field in (
            ("search", {"query": "deploy"}, "page_size"),
            ("search", {"query": "deploy"}, "limit"),
            ("regex_search", {"pattern": "deploy"}, "page_size"),
            ("find_related", {"path": DOC}, "page_size"),
        )
    ],
    (
        "changed_docs",
        {"since": "HEAD", "limit": 0},
        "limit should be 1 to 1,000 (a larger value is read as 1,000), not 0",
    ),
    # a float past 2**53 stands for no one integer
    (
        "get_doc",
        {"path": DOC, "max_length": 1e308},
        "max_length should be an integer or null, not 1e+308",
    ),
]
# above the range: read as its most, as the descriptions say
TAKEN: list[tuple[str, dict[str, Any]]] = [
    ("get_doc", {"path": DOC, "max_length": 10**9}),
    ("get_doc", {"path": DOC, "max_length": 3.0}),  # a float that is one integer
    ("get_related", {"path": DOC, "depth": 100}),
    ("read_snippet", {"path": DOC, "query": "canary", "max_tokens": 10**6}),
    ("search", {"query": "deploy", "page_size": 51}),
    ("changed_docs", {"since": "HEAD", "limit": 10**6}),
]
CALLS = [(tool, args) for tool, args, _ in REFUSED] + TAKEN


def test_the_ranges_are_the_librarys() -> None:
    assert tools.PAGE_SIZES == (MIN_PAGE, MAX_PAGE)
    assert tools.DEPTHS == (MIN_DEPTH, MAX_DEPTH)
    assert tools.SNIPPET_TOKENS == (MIN_TOKENS, MAX_TOKENS)
    assert tools.DOC_CHARS == (1, GET_DOC_MAX_CHARS)
    assert tools.CHANGES == (1, MAX_CHANGES)


async def _answers(client: Client) -> list[tuple[bool, Any]]:
    out = []
    for tool, args in CALLS:
        result = await client.call_tool(tool, args)
        out.append((bool(result.is_error), json.loads(result.content[0].text)))  # type: ignore[union-attr]
    return out


def _stdio(root: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=root, env=server_env(**env)
    )


async def test_every_mcp_server_refuses_a_value_below_the_range(repo: Path) -> None:
    answers = {}
    for name, params in (("fast", _stdio(repo)), ("sdk", _stdio(repo, KENSO_MCP_SDK="1"))):
        async with Client(params) as client:
            answers[name] = await _answers(client)
    async with Client(build_server(Service(repo))) as client:
        answers["memory"] = await _answers(client)
    assert answers["fast"] == answers["sdk"] == answers["memory"]
    for (tool, args, error), (failed, body) in zip(REFUSED, answers["memory"], strict=False):
        assert failed, (tool, args, body)  # before: the whole document, one hit, depth 1...
        assert body["error"] == f"bad arguments for {tool}: {error}", (tool, args)
    taken = answers["memory"][len(REFUSED) :]
    for (tool, args), (failed, body) in zip(TAKEN, taken, strict=True):
        assert not failed, (tool, args, body)
    page = taken[TAKEN.index(("search", {"query": "deploy", "page_size": 51}))][1]
    assert page["page_size"] == 50
    assert answers["memory"][0][1]["hint"] == HINT.format("get_doc", "max_length")


async def test_get_search_refuses_a_page_size_below_the_range(repo: Path) -> None:
    app, scope = _events_request(Service(repo), Routes(Service(repo)))
    scope = {**scope, "path": "/search", "query_string": b"q=deploy&page_size=0"}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with anyio.fail_after(20):
        await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = json.loads(b"".join(m.get("body", b"") for m in sent if "body" in m))
    assert status == 400
    assert body["error"] == (
        "bad arguments for search: page_size should be 1 to 50 "
        "(a larger value is read as 50), not 0"
    )
