"""The same bytes get the same verdict on every transport: one validation (`stdio.verdict`).

The SDK-free stdio loop judged a message by its own checks, the SDK's stdio server and HTTP
by pydantic's and then the loop's: a request without `"jsonrpc": "2.0"` was served by the
loop and -32600 over HTTP (a notification without it: ignored by the loop, HTTP's -32602
with pydantic's dump); params of a `ping`, `tools/list` or `initialize` holding a lone
UTF-16 surrogate or nesting past 200 levels were served by the loop and -32600 over HTTP;
and a call nesting past json's limit was served or -32700 as deep as each transport's
stack already was. Now every transport answers the loop's verdict: -32600 without
`jsonrpc` (the id kept), -32602 naming what the params hold, -32700 past 400 levels. Each
case is a raw line to a real `kenso-git serve` over stdio (both servers) and a raw POST to
a real `kenso-git serve --transport http`; each server answers a ping afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
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
from tests.serve.rpc import spawn_stdio

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
PING = {"jsonrpc": "2.0", "id": 99, "method": "ping"}


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _get_doc(ident: int, extra: str, jsonrpc: str = '"jsonrpc":"2.0",') -> str:
    return (
        f'{{{jsonrpc}"id":{ident},"method":"tools/call","params":{{"name":"get_doc",'
        f'"arguments":{{"path":"docs/deploy.md"{extra}}}}}}}'
    )


# (the raw line, the id of its answer, the JSON-RPC error code of it or None when served)
CASES: list[tuple[str, object, int | None]] = [
    ('{"id":10,"method":"ping"}', 10, -32600),
    ('{"id":"eleven","method":"tools/list"}', "eleven", -32600),
    (_get_doc(12, "", jsonrpc=""), 12, -32600),
    ('{"jsonrpc":"1.0","id":13,"method":"ping"}', 13, -32600),
    ('{"jsonrpc":2,"id":14,"method":"ping"}', 14, -32600),
    ('{"method":"notifications/initialized"}', None, -32600),
    ('{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"\\ud800"}}', 15, -32602),
    ('{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"\\udfff":1}}', 16, -32602),
    (
        '{"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":'
        '"2025-06-18","capabilities":{},"clientInfo":{"name":"\\ud800","version":"0"}}}',
        17,
        -32602,
    ),
    (f'{{"jsonrpc":"2.0","id":18,"method":"ping","params":{{"x":{_nested(200)}}}}}', 18, -32602),
    (f'{{"jsonrpc":"2.0","id":19,"method":"ping","params":{{"x":{_nested(199)}}}}}', 19, None),
    ('{"jsonrpc":"2.0","id":20,"method":"ping","extra":"\\ud800"}', 20, None),
    (_get_doc(21, f',"x":{_nested(300)}'), 21, None),  # an unknown argument: ignored
    (_get_doc(22, f',"x":{_nested(397)}'), 22, None),  # 400 levels in all: read
    (_get_doc(24, f',"x":{_nested(398)}'), None, -32700),
    (_get_doc(25, f',"x":{_nested(500)}'), None, -32700),
    (_get_doc(23, f',"x":{_nested(980)}'), None, -32700),  # about json's own limit
    # the SDK's stdio server crashed on it (a recursive walk of the id)
    (f'{{"jsonrpc":"2.0","id":{_nested(450)},"method":"tools/call","params":{{}}}}', None, -32700),
]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("verdict") / "repo")
        ingest(root)
        with running_http_server(root) as running:
            yield running


def _verdict(message: dict[str, Any]) -> tuple[object, ...]:
    """An answer, all of it that the transports must agree on."""
    if "error" in message:
        error = message["error"]
        return message["id"], error["code"], error["message"], error.get("data")
    return message["id"], "result", bool(message["result"].get("isError"))


def _over_stdio(root: Path, line: str, ident: object, **env: str) -> list[dict[str, Any]]:
    """The answers to `line` after a handshake from a real `kenso-git serve` over stdio,
    which answers a ping after it (the server goes on): read until the ping's answer and
    the one with `ident` (a tool call's comes when it is done), then to the end of output."""
    proc = spawn_stdio(root, **env)
    assert proc.stdin is not None and proc.stdout is not None
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), line, json.dumps(PING)]
    proc.stdin.write("".join(one + "\n" for one in lines))
    proc.stdin.flush()
    want = {99} if ident is None else {99, ident}
    out: list[dict[str, Any]] = []
    try:
        while not want <= {m.get("id") for m in out}:
            got = proc.stdout.readline()  # the test's timeout bounds a silent server
            if not got:
                break
            out.append(json.loads(got))
        proc.stdin.close()  # the server ends, its answers written
        out.extend(json.loads(got) for got in proc.stdout)
    finally:
        if not proc.stdin.closed:
            proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert [m["result"] for m in out if m.get("id") == 99] == [{}], out
    return [m for m in out if m.get("id") not in (1, 99)]


def _over_http(server: HttpServer, line: str) -> list[dict[str, Any]]:
    """The answer to `line` POSTed in a session of a real `kenso-git serve --transport
    http`, and the server's answer to a ping after it."""
    with httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **server.auth()}
        opened = client.post(server.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = INIT["params"]["protocolVersion"]  # type: ignore[index]
        client.post(server.url, json=INITIALIZED, headers=headers)
        reply = client.post(server.url, content=line.encode(), headers=headers)
        answer = reply.json() if reply.content else None
        ping = client.post(server.url, json=PING, headers=headers)
        assert ping.json()["result"] == {}, ping.text
    assert reply.status_code == (200 if answer and "result" in answer else 400), reply.text
    return [answer] if answer is not None else []


@pytest.mark.parametrize(("line", "ident", "code"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_the_same_bytes_get_the_same_answer_over_stdio_and_http(
    http_server: HttpServer, line: str, ident: object, code: int | None
) -> None:
    fast = [_verdict(m) for m in _over_stdio(http_server.root, line, ident)]
    sdk = [_verdict(m) for m in _over_stdio(http_server.root, line, ident, KENSO_MCP_SDK="1")]
    http = [_verdict(m) for m in _over_http(http_server, line)]
    assert fast == sdk == http, (line[:100], fast, sdk, http)
    assert len(fast) == 1, fast
    assert fast[0][:2] == (ident, "result" if code is None else code), fast
