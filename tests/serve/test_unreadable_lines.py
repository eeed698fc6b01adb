"""A line the SDK's stdio server cannot read is answered, and the session goes on.

With KENSO_MCP_SDK=1 the SDK's stdio transport logged a line it could not read (at DEBUG)
and read on without answering: a request holding a 5,000-digit number (past Python's
4,300-digit int() limit), a line that is not JSON, or JSON that is not a request, left its
client waiting for ever. The SDK-free loop answers such lines -32700 or -32600; both
servers must now answer them alike and keep answering the requests after them. Each case
is a real `kenso-git serve` process fed raw lines on stdin.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import spawn_stdio
from tests.serve.rpc import tool_call

HUGE = "9" * 5000
# (the raw line, the id its answer has, the JSON-RPC error code of that answer)
UNREADABLE: list[tuple[str, object, int]] = [
    (
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search",'
        f'"arguments":{{"query":"x","page_size":{HUGE}}}}}}}',
        None,  # not JSON: its id cannot be read either
        -32700,
    ),
    (f'{{"jsonrpc":"2.0","id":{HUGE},"method":"ping"}}', None, -32700),
    ("not json at all", None, -32700),
    ('{"jsonrpc":"2.0","id":5,"method":5}', 5, -32600),
    ('{"jsonrpc":"2.0","id":"six","method":"ping","params":"x"}', "six", -32600),
    ('{"jsonrpc":"2.0","id":[7],"method":"ping"}', None, -32600),  # an id MCP does not allow
    ("[]", None, -32600),
    ("[" * 50_000, None, -32700),  # nested past the parser's depth: it raised RecursionError
    (
        '{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":'
        + "[" * 50_000
        + "]" * 50_000
        + "}}",
        None,
        -32700,
    ),
]


def _answers(root: Path, lines: list[str], want: set[object] | None, **env: str) -> list[Any]:
    """Every line `kenso-git serve` writes until each id in `want` is answered; with no
    `want`, stdin is closed once `lines` are written, and every line up to the end."""
    proc = spawn_stdio(root, **env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(line + "\n" for line in lines))
    proc.stdin.flush()
    if want is None:
        proc.stdin.close()
    out: list[Any] = []
    try:
        while want is None or not all(any(m.get("id") == i for m in out) for i in want):
            line = proc.stdout.readline()  # the test's timeout bounds a silent server
            if not line:
                break
            out.append(json.loads(line))
    finally:
        if not proc.stdin.closed:
            proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    return out


@pytest.mark.parametrize(("line", "ident", "code"), UNREADABLE, ids=range(len(UNREADABLE)))
@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_an_unreadable_line_is_answered_and_the_next_call_too(
    repo: Path, sdk: bool, line: str, ident: object, code: int
) -> None:
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), line]
    lines.append(json.dumps(tool_call(3, "health_check", {})))
    env = {"KENSO_MCP_SDK": "1"} if sdk else {}
    out = _answers(repo, lines, {1, 3}, **env)
    errors = [m for m in out if "error" in m]
    assert [(m["id"], m["error"]["code"]) for m in errors] == [(ident, code)], out
    later = next(m for m in out if m.get("id") == 3)
    assert later["result"]["isError"] is False
    assert json.loads(later["result"]["content"][0]["text"])["ok"] is True


def test_both_servers_answer_unreadable_lines_alike(repo: Path) -> None:
    """The same answer, word for word, at the end of a session too (stdin closed after)."""
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), *(line for line, _, _ in UNREADABLE)]
    fast = [m for m in _answers(repo, lines, None) if m["id"] != 1]
    sdk = [m for m in _answers(repo, lines, None, KENSO_MCP_SDK="1") if m["id"] != 1]
    assert len(fast) == len(UNREADABLE)
    assert sorted(map(json.dumps, sdk)) == sorted(map(json.dumps, fast))
    assert "4300 digits" in fast[0]["error"]["data"]
