"""Arguments that do not fit a tool's input schema get the documented JSON error.

docs/mcp-tools.md promises `{"error", "hint"?, "rule"?}` for every expected problem, and
docs/security.md a `not-a-string` refusal for a path that is not a string; the SDK's own
validation answered both with plain text ("Error executing tool get_doc: 1 validation
error ..."), and the SDK-free stdio loop copied it. Each case runs over real MCP sessions:
`kenso-git serve` over stdio (the SDK-free loop and, with KENSO_MCP_SDK=1, the SDK's
server) and the SDK's in-memory client on the server object, and all three must agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import KENSO_EXE
from tests.serve.rpc import server_env

pytestmark = pytest.mark.anyio

# every tool with a `path`: each one's path goes through the scope gate
NOT_A_STRING: list[tuple[str, dict[str, Any]]] = [
    ("get_doc", {"path": 123}),
    ("get_doc", {"path": None}),
    ("get_related", {"path": ["docs/deploy.md"]}),
    ("read_snippet", {"path": {"p": 1}, "query": "canary"}),
    ("find_related", {"path": 7.5}),
    ("search", {"query": "payment", "path": 5}),
    ("regex_search", {"pattern": "pay", "path": True}),
]
# (tool, arguments, words the error must hold: the argument and what it should be)
MISFITS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("search", {"query": "payment", "mode": "bogus"}, ("mode", "'ranked' or 'exhaustive'")),
    ("search_docs", {}, ("query", "required", "a string")),
    ("search_docs", {"query": "x", "limit": "many"}, ("limit", "an integer", "'many'")),
    ("search_multi", {"queries": ["a", 1]}, ("queries", "an array of strings")),
    ("read_snippet", {"path": "docs/deploy.md", "query": 5}, ("query", "a string", "5")),
    # past Python's 4,300-digit limit of int(): the check itself raised (an internal error)
    ("search", {"query": "x", "page_size": "9" * 5000}, ("page_size", "an integer")),
]
CALLS = [(tool, args) for tool, args in NOT_A_STRING] + [(t, a) for t, a, _ in MISFITS]


async def _answers(client: Client) -> list[tuple[bool, str]]:
    out = []
    for tool, args in CALLS:
        result = await client.call_tool(tool, args)
        out.append((result.is_error, result.content[0].text))
    return out


def _stdio(root: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=root, env=server_env(**env)
    )


async def _every_server(root: Path) -> dict[str, list[tuple[bool, str]]]:
    """The answers to CALLS of the SDK-free loop, the SDK's stdio server and in-memory."""
    out = {}
    for name, params in (("fast", _stdio(root)), ("sdk", _stdio(root, KENSO_MCP_SDK="1"))):
        async with Client(params) as client:
            out[name] = await _answers(client)
    async with Client(build_server(Service(root))) as client:
        out["memory"] = await _answers(client)
    return out


async def test_bad_arguments_are_the_documented_json_error_on_every_path(repo: Path) -> None:
    answers = await _every_server(repo)
    assert answers["fast"] == answers["sdk"] == answers["memory"]
    by_call = dict(zip(range(len(CALLS)), answers["fast"], strict=True))
    for i, (tool, args) in enumerate(NOT_A_STRING):
        is_error, text = by_call[i]
        assert is_error, (tool, text)
        body = json.loads(text)  # JSON, not the SDK's plain text
        assert body["rule"] == "not-a-string", (tool, body)
        assert "path" in body["error"] and "a string" in body["error"], body
        assert body["error"].startswith("path refused (not-a-string)"), body
        assert "hint" in body, body
        assert "validation error" not in text, (tool, args)
    for j, (tool, _args, words) in enumerate(MISFITS, start=len(NOT_A_STRING)):
        is_error, text = by_call[j]
        assert is_error, (tool, text)
        body = json.loads(text)
        assert "rule" not in body, body
        assert tool in body["error"], body
        for word in words:
            assert word in body["error"], (word, body)
        assert body["hint"], body


async def test_a_fitting_call_is_still_answered(repo: Path) -> None:
    """Lax reading stays: an integer sent as "2" is 2, an unknown argument is ignored."""
    async with Client(_stdio(repo, KENSO_MCP_SDK="1")) as client:
        sdk = await client.call_tool("search", {"query": "payment", "page_size": "2", "x": 1})
    async with Client(_stdio(repo)) as client:
        fast = await client.call_tool("search", {"query": "payment", "page_size": "2", "x": 1})
    assert not sdk.is_error and not fast.is_error
    assert json.loads(sdk.content[0].text)["page_size"] == 2
    assert sdk.content[0].text == fast.content[0].text
