"""A call naming no tool the server offers is the documented JSON error, on every transport.

docs/mcp-tools.md promises `{"error", "hint"?, ...}` with `isError: true` for every expected
problem; a call to a tool that does not exist was plain text instead ("Unknown tool: nope")
on stdio, both the SDK-free loop and the SDK's server, and over HTTP, and a call without a
name was plain text on the loop but a -32602 protocol error on the SDK's server. Each case
runs over real sessions: the SDK's client on `kenso-git serve` over stdio (both servers),
in memory on the server object, and over streamable HTTP with the bearer token; raw
JSON-RPC lines and posts where the SDK's client cannot send the call (no name).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import server_env
from tests.serve.rpc import spawn_stdio

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
# tools/call params without a usable name: none at all, a number, no params member
NAMELESS: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"arguments": {}}},
    {"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": 5, "arguments": {}}},
    {"jsonrpc": "2.0", "id": 22, "method": "tools/call"},
]


def _stdio(root: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=root, env=server_env(**env)
    )


async def _calls(client: Client) -> list[tuple[bool, str]]:
    out = []
    for name in ("nope", "reindex", "x" * 500):
        result = await client.call_tool(name, {"query": "payment"})
        out.append((bool(result.is_error), result.content[0].text))  # type: ignore[union-attr]
        assert result.structured_content is None, name  # an error carries text only
    return out


def _is_unknown_tool(text: str, *words: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(text)  # JSON, not the SDK's plain "Unknown tool: nope"
    assert body["code"] == "unknown-tool", body
    assert "search_docs" in body["hint"] and "tools/list" in body["hint"], body
    for word in words:
        assert word in body["error"], (word, body)
    return body


@pytest.mark.anyio
async def test_an_unknown_tool_is_the_documented_json_error_on_stdio_and_in_memory(
    repo: Path,
) -> None:
    answers = {}
    for name, params in (("fast", _stdio(repo)), ("sdk", _stdio(repo, KENSO_MCP_SDK="1"))):
        async with Client(params) as client:
            answers[name] = await _calls(client)
    async with Client(build_server(Service(repo))) as client:
        answers["memory"] = await _calls(client)
    assert answers["fast"] == answers["sdk"] == answers["memory"]
    (nope_failed, nope), (reindex_failed, reindex), (long_failed, long) = answers["fast"]
    assert nope_failed and reindex_failed and long_failed
    _is_unknown_tool(nope, "unknown tool 'nope'")
    # a tool this server could offer says how it would be
    assert "allow-reindex = true" in _is_unknown_tool(reindex, "'reindex'")["hint"]
    assert len(_is_unknown_tool(long, "unknown tool")["error"]) < 300  # the name is cut


def _session(root: Path, requests: list[dict[str, Any]], **env: str) -> dict[object, Any]:
    """Every answer by id from one `kenso-git serve` process fed `requests` as raw lines."""
    want = {r["id"] for r in requests if "id" in r}
    proc = spawn_stdio(root, **env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.flush()
    answers: dict[object, Any] = {}
    try:
        while not want <= set(answers):
            line = proc.stdout.readline()  # the test's timeout bounds a silent server
            if not line:
                break
            message = json.loads(line)
            answers[message.get("id")] = message
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    return answers


def test_a_call_without_a_tool_name_is_the_same_error_on_both_stdio_servers(repo: Path) -> None:
    requests: list[dict[str, Any]] = [INIT, INITIALIZED, *NAMELESS]
    fast = _session(repo, requests)
    sdk = _session(repo, requests, KENSO_MCP_SDK="1")  # answered -32602 before
    for request in NAMELESS:
        ident = request["id"]
        assert fast[ident] == sdk[ident], ident
        result = sdk[ident]["result"]
        assert result["isError"] is True and "structuredContent" not in result
        body = _is_unknown_tool(result["content"][0]["text"], "names no tool")
        assert ("should be a string, not 5" in body["error"]) == (ident == 21), body


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(
            tmp_path_factory.mktemp("unknown") / "repo", extra="allow-reindex = true\n"
        )
        ingest(root)
        with running_http_server(root, env={"KENSO_TRANSPORT": "http"}) as running:
            yield running


@pytest.mark.anyio
async def test_an_unknown_tool_is_the_documented_json_error_over_http(
    http_server: HttpServer,
) -> None:
    async with (
        httpx2.AsyncClient(headers=http_server.auth()) as http,
        Client(streamable_http_client(http_server.url, http_client=http)) as client,
    ):
        nope = await client.call_tool("nope", {})
        reindex = await client.call_tool("reindex", {})  # allowed, but never over HTTP
    assert nope.is_error and reindex.is_error
    _is_unknown_tool(nope.content[0].text, "unknown tool 'nope'")  # type: ignore[union-attr]
    body = _is_unknown_tool(reindex.content[0].text, "'reindex'")  # type: ignore[union-attr]
    assert "never over HTTP" in body["hint"], body


def test_a_call_without_a_tool_name_is_the_documented_json_error_over_http(
    http_server: HttpServer,
) -> None:
    with httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **http_server.auth()}
        opened = client.post(http_server.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        client.post(http_server.url, json=INITIALIZED, headers=headers)
        for request in NAMELESS:
            reply = client.post(http_server.url, json=request, headers=headers)
            assert reply.status_code == 200, reply.text
            result = reply.json()["result"]  # not a -32602 protocol error
            assert result["isError"] is True, result
            _is_unknown_tool(result["content"][0]["text"], "names no tool")
