"""A string argument holding half a UTF-16 pair (JSON `"\\ud800"`, which no UTF-8 text
holds) reached the tools, and every one failed on it later (the gate's paths, SQLite, git):
"internal error: UnicodeEncodeError ... surrogates not allowed", a message calling it a bug,
whose position also counted the checkout's absolute path. It is now an argument error naming
the argument, on the SDK's stdio server too (whose JSON parser refused the whole request,
-32600, until the call was carried past it: `serve.mcp.tunnel`); HTTP is checked in
test_arguments_on_every_transport."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import spawn_stdio
from tests.serve.test_unreadable_lines import _answers

CALLS = [
    ("get_doc", '{"path":"docs/\\udfff.md"}', "path"),
    ("search", '{"query":"deploy \\ud800"}', "query"),
    ("search_multi", '{"queries":["deploy","a\\ud83dx"]}', "queries"),
    ("regex_search", '{"pattern":"x\\ud800"}', "pattern"),
]


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_lone_surrogate_is_an_argument_error_naming_the_argument(repo: Path, sdk: bool) -> None:
    lines = [json.dumps(INIT), json.dumps(INITIALIZED)]
    for i, (tool, arguments, _field) in enumerate(CALLS, start=10):
        lines.append(
            f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"{tool}",'
            f'"arguments":{arguments}}}}}'
        )
    env = {"KENSO_MCP_SDK": "1"} if sdk else {}
    want: set[object] = set(range(10, 10 + len(CALLS)))
    answers = {m.get("id"): m for m in _answers(repo, lines, want, **env)}
    for i, (tool, _arguments, field) in enumerate(CALLS, start=10):
        result = answers[i].get("result")
        assert result is not None and result["isError"] is True, (tool, answers[i])
        body = json.loads(result["content"][0]["text"])
        assert body["error"].startswith(f"bad arguments for {tool}: {field} holds a lone"), body


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_lone_surrogate_outside_the_arguments_is_answered_and_the_server_lives_on(
    repo: Path, sdk: bool
) -> None:
    """An id or a method holding one could not be written back as UTF-8: the SDK-free
    loop died of the UnicodeEncodeError (or lost a tool call's answer on its worker) and
    the SDK's stdio server crashed ("unhandled errors in a TaskGroup"). An id JSON-RPC's
    answer cannot carry is refused as an invalid request, as an id such as `[7]` is."""
    lines = [
        json.dumps(INIT),
        json.dumps(INITIALIZED),
        '{"jsonrpc":"2.0","id":5,"method":"x\\ud800"}',
        '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
        '{"jsonrpc":"2.0","id":"a\\udc00","method":"tools/call",'
        '"params":{"name":"health_check","arguments":{}}}',
        '{"jsonrpc":"2.0","id":11,"method":"ping"}',
    ]
    proc = spawn_stdio(repo, **({"KENSO_MCP_SDK": "1"} if sdk else {}))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(line + "\n" for line in lines))
    proc.stdin.flush()
    out: list[dict[str, object]] = []
    try:
        while len(out) < 5:  # initialize and the four requests; the test's timeout bounds it
            line = proc.stdout.readline()
            assert line, f"the server ended after {out}"
            out.append(json.loads(line))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    errors = sorted((m["id"] is None, m["error"]["code"]) for m in out if "error" in m)  # type: ignore[index]
    # no method has that name: -32601 on both (the SDK's model refused its text, -32600)
    assert errors == sorted([(False, -32601), (True, -32600), (True, -32600)]), out
    assert {"jsonrpc": "2.0", "id": 11, "result": {}} in out, out
