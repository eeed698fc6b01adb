"""A message the SDK's JSON parser refuses gets the same answer on the three transports.

The SDK-free stdio loop reads a message with Python's json module; the SDK's stdio server and
streamable HTTP read it with pydantic's, which refuses a whole message holding a lone UTF-16
surrogate anywhere (the id, the method, a member JSON-RPC does not define, a duplicate key
json drops) or nesting past 200 levels. Those were -32600 on the SDK's stdio server and -32700
over HTTP where the loop answered the call, a method not found, or an invalid request; params
that are no object were HTTP's -32602 with pydantic's dump; and a request whose id JSON-RPC
does not allow (null, an object, 1.5) was HTTP's 202 with no answer at all. A batch is
answered message by message on both stdio servers (HTTP refuses it whole, -32600). Each case
is a raw JSON-RPC line to a real `kenso-git serve` over stdio, both servers, and a raw POST
to a real `kenso-git serve --transport http` with its bearer token.
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
DEEP = "[" * 300 + "]" * 300  # past pydantic's 200 levels, well within json's


def _call(ident: str, params: str, extra: str = "") -> str:
    return f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call","params":{params}{extra}}}'


def _get_doc(arguments: str) -> str:
    return f'{{"name":"get_doc","arguments":{arguments}}}'


# (id, raw line, what every transport answers: ("error", code) or ("tool", error rule/start
# or None for a served call))
CASES: list[tuple[int | None, str, tuple[str, object]]] = [
    (None, _call('"\\ud800"', _get_doc('{"path":"docs/deploy.md"}')), ("error", -32600)),
    (
        15,
        '{"jsonrpc":"2.0","id":15,"method":"tools/c\\ud800all","params":{}}',
        ("error", -32601),
    ),
    (
        26,
        _call("26", _get_doc('{"path":"\\ud800","path":"ignored/notes.md"}')),
        ("tool", "ignored"),
    ),
    (29, _call("29", "[1]"), ("error", -32600)),
    (
        33,
        _call("33", _get_doc('{"path":"\\ud800"}'), ',"extra":"\\ud800"'),
        ("tool", "bad arguments for get_doc: path holds a lone"),
    ),
    (34, _call("34", _get_doc(f'{{"path":"docs/deploy.md","x":{DEEP}}}')), ("tool", None)),
    (
        35,
        _call("35", f'{{"name":"search_multi","arguments":{{"queries":{DEEP}}}}}'),
        ("tool", "bad arguments for search_multi: queries should be"),
    ),
    (36, _call("36", _get_doc('{"path":"docs/deploy.md"}'), f',"extra":{DEEP}'), ("tool", None)),
    (None, _call("null", _get_doc('{"path":"\\ud800"}')), ("error", -32600)),
    (None, _call('{"a":1}', _get_doc('{"path":"\\ud800"}')), ("error", -32600)),
    (None, _call("1.5", _get_doc('{"path":"\\ud800"}')), ("error", -32600)),
]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("messages") / "repo")
        ingest(root)
        with running_http_server(root) as running:
            yield running


def _shape(message: dict[str, Any]) -> tuple[str, object]:
    """What an answer is: a JSON-RPC error's code, or a tool result's refusal (its rule,
    else its error text) or None when the call was served."""
    if "error" in message:
        return "error", message["error"]["code"]
    result = message["result"]
    if not result.get("isError"):
        return "tool", None
    body = json.loads(result["content"][0]["text"])
    return "tool", body.get("rule") or body["error"]


def _matches(shape: tuple[str, object], want: tuple[str, object]) -> bool:
    kind, what = shape
    if kind != want[0] or (what is None) != (want[1] is None):
        return False
    return what == want[1] or (isinstance(what, str) and what.startswith(str(want[1])))


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_message_pydantic_refuses_is_answered_as_the_loop_answers_it_over_stdio(
    http_server: HttpServer, sdk: bool
) -> None:
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), *(line for _, line, _ in CASES)]
    lines.append('{"jsonrpc":"2.0","id":99,"method":"ping"}')  # the server is still there
    want = {1, 99, *(ident for ident, _, _ in CASES if ident is not None)}
    out = _answers(http_server.root, lines, want, **({"KENSO_MCP_SDK": "1"} if sdk else {}))
    by_id = {m["id"]: m for m in out if m.get("id") is not None}
    for ident, line, expected in CASES:
        if ident is not None:
            assert _matches(_shape(by_id[ident]), expected), (line[:120], by_id[ident])
    unnamed = [_shape(m) for m in out if m.get("id") is None]
    assert unnamed == [("error", -32600)] * sum(1 for i, _, _ in CASES if i is None), out
    assert by_id[99]["result"] == {}


def test_a_message_pydantic_refuses_is_answered_as_the_loop_answers_it_over_http(
    http_server: HttpServer,
) -> None:
    with httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **http_server.auth()}
        opened = client.post(http_server.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = INIT["params"]["protocolVersion"]  # type: ignore[index]
        client.post(http_server.url, json=INITIALIZED, headers=headers)
        for ident, line, expected in CASES:
            reply = client.post(http_server.url, content=line.encode(), headers=headers)
            assert reply.status_code == (400 if expected[0] == "error" else 200), reply.text
            answer = reply.json()  # never 202 and no answer
            assert answer["id"] == ident, (line[:120], answer)
            assert _matches(_shape(answer), expected), (line[:120], answer)


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_batch_is_answered_message_by_message_over_stdio(
    http_server: HttpServer, sdk: bool
) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 40, "method": "ping"},
        {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "health_check"}},
        7,
    ]
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), json.dumps(batch)]
    out = _answers(
        http_server.root, lines, {40, 41, None}, **({"KENSO_MCP_SDK": "1"} if sdk else {})
    )
    by_id = {m.get("id"): m for m in out}
    assert by_id[40]["result"] == {}
    assert by_id[41]["result"]["isError"] is False, by_id[41]
    assert by_id[None]["error"]["code"] == -32600  # 7 is no message


def test_a_batch_is_an_invalid_request_over_http(http_server: HttpServer) -> None:
    batch = [{"jsonrpc": "2.0", "id": 40, "method": "ping"}]
    headers = {**MCP_HEADERS, **http_server.auth()}
    reply = httpx.post(http_server.url, json=batch, headers=headers, timeout=30)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["code"] == -32600  # not pydantic's -32602 dump
