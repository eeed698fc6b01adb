"""A cursor holding deeply nested JSON is the documented cursor error, on every paged tool.

get_related's cursor carries its row's key as JSON (`[depth, path, relation_type]`); one
forged to hold 1,000 nested `[` (its check is a digest of the request, no secret) made the
json module raise RecursionError, answered "internal error: RecursionError ... this is a
bug in kenso-git". Each call is a raw JSON-RPC line to a real `kenso-git serve` over stdio,
the SDK-free loop and the SDK's server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.search import pagination
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import tool_call
from tests.serve.test_unreadable_lines import _answers

DEEP = 1000  # past the json module's recursion limit, well under the cursor's length cap
RELATED = pagination.request_check("get_related", "docs/deploy.md", 1, None)
# (tool, arguments without the cursor, the cursor, the start of the documented error or
# None when the call may be answered: a path key is no JSON, so it is just a place)
CASES: list[tuple[str, dict[str, object], str, str | None]] = [
    (
        "get_related",
        {"path": "docs/deploy.md"},
        pagination.keyset_cursor("[" * DEEP, RELATED),
        "cursor 'k2-5b5b",
    ),
    (
        "get_related",
        {"path": "docs/deploy.md"},
        pagination.keyset_cursor('{"a":' * DEEP, RELATED),
        "cursor 'k2-7b22",
    ),
    (
        "search",
        {"query": "deploy", "mode": "exhaustive"},
        pagination.keyset_cursor(
            "[" * DEEP, pagination.request_check("search", "deploy", "exhaustive")
        ),
        None,
    ),
    (
        "regex_search",
        {"pattern": "deploy"},
        pagination.line_cursor(
            "[" * DEEP, 1, 0, "00000000", pagination.request_check("regex", "deploy", None, None)
        ),
        None,
    ),
]


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_deeply_nested_cursor_is_a_cursor_error_not_an_internal_one(
    repo: Path, sdk: bool
) -> None:
    calls = [
        tool_call(10 + n, tool, {**arguments, "cursor": cursor})
        for n, (tool, arguments, cursor, _) in enumerate(CASES)
    ]
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), *map(json.dumps, calls)]
    want = {10 + n for n in range(len(CASES))}
    out = _answers(repo, lines, want, **({"KENSO_MCP_SDK": "1"} if sdk else {}))
    got = {m["id"]: m["result"] for m in out if m.get("id") in want}
    for n, (tool, _, _, error) in enumerate(CASES):
        result = got[10 + n]
        text = result["content"][0]["text"]
        assert "internal error" not in text, (tool, text)
        if error is None:
            continue
        assert result["isError"], (tool, text)
        body = json.loads(text)
        assert body["error"].startswith(error), (tool, body)
        assert "is not a next_cursor of get_related" in body["error"], body
