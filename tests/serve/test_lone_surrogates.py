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
