"""A tools/call whose `arguments` are no object, or hold a lone UTF-16 surrogate, is answered
alike by the three transports: the documented argument error where the SDK-free loop gives it.

`"arguments": [1]` (or a string, a number, true) was the loop's documented error, or simply
read as no arguments, while the SDK's stdio server and streamable HTTP answered the SDK's
JSON-RPC -32602. `"\\ud800"` in an argument (JSON Python's json module reads) was the loop's
argument error naming the argument, while the SDK's stdio server refused the line (-32600)
and HTTP the body (-32700, "unexpected end of hex escape"): pydantic's JSON parser refuses a
lone surrogate. Each case is a raw JSON-RPC line to a real `kenso-git serve` over stdio (the
SDK-free loop, and the SDK's server with KENSO_MCP_SDK=1) and a raw POST to a real
`kenso-git serve --transport http` with its bearer token: SDK clients refuse to send them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.test_unreadable_lines import _answers

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
OBJECT = "arguments should be an object (each argument's name to its value), not "
SURROGATE = "holds a lone UTF-16 surrogate"
REF_NOT = "bad arguments for {0}: ref is not an argument of {0}"
# (id, tool, raw JSON of `arguments`, the start of the error; None: the call is answered)
CASES: list[tuple[int, str, str, str | None]] = [
    (10, "search", "[1]", f"bad arguments for search: {OBJECT}[1]"),
    (11, "health_check", '"x"', f"bad arguments for health_check: {OBJECT}'x'"),
    (12, "get_doc", "5", f"bad arguments for get_doc: {OBJECT}5"),
    (13, "search_docs", "true", f"bad arguments for search_docs: {OBJECT}true"),
    (14, "health_check", '"\\ud800"', f"bad arguments for health_check: {OBJECT}'\\ud800'"),
    (15, "health_check", "null", None),  # null is no arguments, as MCP allows
    (16, "nope", "[1]", "unknown tool 'nope'"),  # the name is refused first
    # a `ref` the tool does not take was ignored: the answer came from the work tree, silently
    (
        17,
        "regex_search",
        '{"pattern":"x","ref":"HEAD"}',
        REF_NOT.format("regex_search"),
    ),
    (
        18,
        "search_multi",
        '{"queries":["a","b"],"ref":"HEAD"}',
        REF_NOT.format("search_multi"),
    ),
    (20, "get_doc", '{"path":"docs/\\udfff.md"}', f"bad arguments for get_doc: path {SURROGATE}"),
    (21, "search", '{"query":"deploy \\ud800"}', f"bad arguments for search: query {SURROGATE}"),
    (22, "search_multi", '{"queries":["a","b\\ud83dx"]}', "bad arguments for search_multi: "),
    (23, "regex_search", '{"pattern":"x\\udc00"}', "bad arguments for regex_search: pattern "),
    (24, "se\\ud800", "{}", "unknown tool 'se\\ud800'"),
    (25, "health_check", '{"ignored":"\\ud800","\\udc00":1}', None),  # unknown: ignored
    (26, "search", '{"query":"deploy \\ud83d\\ude00"}', None),  # a whole pair is text
]


def _line(ident: int, tool: str, arguments: str) -> str:
    return (
        f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
    )


LINES = [_line(ident, tool, arguments) for ident, tool, arguments, _ in CASES]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("transports") / "repo")
        ingest(root)
        with running_http_server(root) as running:
            yield running


def _over_stdio(http_server: HttpServer, **env: str) -> dict[int, Any]:
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), *LINES]
    want = {ident for ident, *_ in CASES}
    out = _answers(http_server.root, lines, {1, *want}, **env)
    return {m["id"]: m for m in out if m.get("id") in want}


def _over_http(server: HttpServer) -> dict[int, Any]:
    with httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **server.auth()}
        opened = client.post(server.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = INIT["params"]["protocolVersion"]  # type: ignore[index]
        client.post(server.url, json=INITIALIZED, headers=headers)
        out = {}
        for (ident, *_), line in zip(CASES, LINES, strict=True):
            reply = client.post(server.url, content=line.encode(), headers=headers)
            assert reply.status_code == 200, (ident, reply.text)
            out[ident] = reply.json()
    return out


def _shape(message: dict[str, Any]) -> tuple[bool, Any]:
    """Whether the call failed, and its error body (None for an answered call)."""
    assert "result" in message, message  # a tool result, not a JSON-RPC error
    result = message["result"]
    if not result["isError"]:
        return False, None
    assert "structuredContent" not in result, result
    return True, json.loads(result["content"][0]["text"])


def test_bad_arguments_get_the_same_documented_error_on_every_transport(
    http_server: HttpServer,
) -> None:
    answers = {
        "fast": _over_stdio(http_server),
        "sdk": _over_stdio(http_server, KENSO_MCP_SDK="1"),
        "http": _over_http(http_server),
    }
    for ident, tool, arguments, error in CASES:
        shapes = {name: _shape(got[ident]) for name, got in answers.items()}
        assert shapes["fast"] == shapes["sdk"] == shapes["http"], (tool, arguments, shapes)
        failed, body = shapes["fast"]
        assert failed == (error is not None), (tool, arguments, body)
        if error is None:
            continue
        assert body["error"].startswith(error), (tool, arguments, body)
        assert body["hint"], body
        assert "rule" not in body, body
        if ident >= 20:
            assert SURROGATE in body["error"] or "unknown tool" in body["error"], body


def test_a_body_nested_too_deep_is_refused_and_the_server_answers_on(
    http_server: HttpServer,
) -> None:
    # 5,000 levels (10 kB, under the cost check's 16 kB): json.loads raised RecursionError,
    # which the cost check and the surrogate tunnel did not catch
    deep = '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search",'
    deep += '"arguments":{"query":"\\ud800","x":' + "[" * 5000 + "]" * 5000 + "}}}"
    with httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **http_server.auth()}
        opened = client.post(http_server.url, json=INIT, headers=headers)
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = INIT["params"]["protocolVersion"]  # type: ignore[index]
        client.post(http_server.url, json=INITIALIZED, headers=headers)
        reply = client.post(http_server.url, content=deep.encode(), headers=headers)
        assert reply.status_code in (200, 400), reply.text
        assert "error" in reply.json() or reply.json()["result"]["isError"], reply.text
        after = client.post(http_server.url, content=LINES[0].encode(), headers=headers)
        assert after.status_code == 200, after.text
