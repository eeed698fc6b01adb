"""The SDK-free stdio loop (#32): it answers as the SDK's server does, without importing it.

Each behaviour is compared with the SDK's own server (`KENSO_MCP_SDK=1`) over real pipes, so
the loop cannot drift from what MCP clients already accept; the cached `tools/list` is checked
against the live SDK answer; and the process is checked never to load the SDK or pydantic.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenso_git.serve.mcp import toolcache
from kenso_git.serve.mcp.arguments import ArgumentError
from kenso_git.serve.mcp.arguments import checked
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import server_env
from tests.serve.rpc import spawn_stdio
from tests.serve.rpc import tool_call


def _env(**extra: str) -> dict[str, str]:
    return server_env(**extra)


def _session(root: Path, requests: list[dict[str, Any]], **env: str) -> dict[object, Any]:
    """Every answer by id, from one server process fed `requests`; stdin stays open until
    each request is answered (the SDK's server drops calls in flight when it closes)."""
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


REQUESTS: list[dict[str, Any]] = [
    INIT,
    INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
    {"jsonrpc": "2.0", "id": 5, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 6, "method": "no/such/method"},
    tool_call(7, "search_docs", {"query": "canary marker alpha", "limit": 3}),
    tool_call(8, "get_doc", {"path": "docs/deploy.md"}),
    tool_call(9, "get_doc", {"path": "../secret.md"}),
    tool_call(10, "search", {"query": "payment tag:billing", "page_size": "2"}),
    tool_call(11, "nope", {}),
    tool_call(12, "index_state", {"unknown": 1}),
    tool_call(13, "read_snippet", {"path": "docs/deploy.md", "query": "canary"}),
    tool_call(14, "get_related", {"path": "docs/deploy.md"}),
    {"jsonrpc": "2.0", "id": 15, "method": "resources/templates/list"},
]


def _watch_masked(answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` with its `query_watch` (index_state, health_check) left out: whether this
    process's inotify watch has armed yet is a thread's progress, not the loop's answer
    (tests/serve/test_query_watch.py checks it)."""
    result = answer.get("result")
    structured = result.get("structuredContent") if isinstance(result, dict) else None
    if not isinstance(structured, dict) or not structured.get("query_watch"):
        return answer
    assert structured["query_watch"]["state"] in {"armed", "arming", "off", "aside"}
    masked = re.sub(r'"query_watch": \{[^}]*\}', '"query_watch": {}', result["content"][0]["text"])
    assert masked != result["content"][0]["text"]
    content = [{**result["content"][0], "text": masked}]
    rest = {**structured, "query_watch": {}}
    return {**answer, "result": {**result, "content": content, "structuredContent": rest}}


def test_the_loop_answers_as_the_sdk_server_does(repo: Path) -> None:
    fast = _session(repo, REQUESTS)
    sdk = _session(repo, REQUESTS, KENSO_MCP_SDK="1")
    assert set(fast) == set(sdk) == {r["id"] for r in REQUESTS if "id" in r}
    for ident in sorted(sdk, key=str):
        assert _watch_masked(fast[ident]) == _watch_masked(sdk[ident]), ident


def test_bad_arguments_are_error_results_naming_the_field(repo: Path) -> None:
    requests = [
        INIT,
        INITIALIZED,
        tool_call(2, "search_docs", {}),
        tool_call(3, "search_docs", {"query": "x", "limit": "many"}),
        tool_call(4, "search", {"query": "x", "mode": "sideways"}),
    ]
    for answers in (_session(repo, requests), _session(repo, requests, KENSO_MCP_SDK="1")):
        for ident, field in ((2, "query"), (3, "limit"), (4, "mode")):
            result = answers[ident]["result"]
            assert result["isError"] is True
            body = json.loads(result["content"][0]["text"])  # the documented JSON error
            assert field in body["error"] and body["hint"]


def test_an_unknown_protocol_version_gets_the_latest_handshake_one(repo: Path) -> None:
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": "2099-01-01"}}  # type: ignore[dict-item]
    fast = _session(repo, [init])[1]["result"]["protocolVersion"]
    sdk = _session(repo, [init], KENSO_MCP_SDK="1")[1]["result"]["protocolVersion"]
    assert fast == sdk


def test_serving_a_session_never_loads_the_sdk_click_or_pydantic(repo: Path) -> None:
    data = "".join(json.dumps(r) + "\n" for r in REQUESTS)
    code = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "from kenso_git.entry import main\n"
        "try:\n    main(['serve', '--no-watch'])\nexcept SystemExit:\n    pass\n"
        "slow = {'click', 'mcp', 'mcp_types', 'pydantic', 'starlette', 'anyio', 'asyncio'}\n"
        "loaded = {m.split('.')[0] for m in sys.modules} & slow\n"
        "sys.stderr.write('LOADED=' + repr(sorted(loaded)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, data],
        cwd=repo,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert "LOADED=[]" in proc.stderr, proc.stderr[-2000:]
    assert '"id":7' in proc.stdout.replace(" ", "")


def test_the_cached_tool_list_is_the_sdk_servers() -> None:
    assert toolcache.CACHE.read_text(encoding="utf-8") == toolcache.render(), (
        "run: python -m kenso_git.serve.mcp.toolcache"
    )


SCHEMA = {
    "properties": {
        "query": {"type": "string"},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "mode": {"enum": ["ranked", "exhaustive"], "type": "string"},
        "queries": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}]},
    },
    "required": ["query"],
}


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        ({"query": "x"}, {"query": "x"}),
        ({"query": "x", "limit": 3}, {"query": "x", "limit": 3}),
        ({"query": "x", "limit": 3.0}, {"query": "x", "limit": 3}),
        ({"query": "x", "limit": " 7 "}, {"query": "x", "limit": 7}),
        ({"query": "x", "limit": "-2.00"}, {"query": "x", "limit": -2}),
        ({"query": "x", "limit": "1_000"}, {"query": "x", "limit": 1000}),
        ({"query": "x", "limit": None}, {"query": "x", "limit": None}),
        ({"query": "x", "extra": 1}, {"query": "x"}),
        ({"query": "x", "queries": ["a", "b"]}, {"query": "x", "queries": ["a", "b"]}),
    ],
)
def test_arguments_are_read_as_pydantic_reads_them(given: Any, wanted: Any) -> None:
    assert checked("t", SCHEMA, given, _no_path) == wanted


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"query": 3},
        {"query": "x", "limit": True},
        {"query": "x", "limit": 2.5},
        {"query": "x", "limit": "2.5"},
        {"query": "x", "limit": "\u0663"},
        {"query": "x", "mode": "sideways"},
        {"query": "x", "queries": ["a", 1]},
        {"query": "x", "queries": "a"},
    ],
)
def test_arguments_that_do_not_fit_are_refused(given: Any) -> None:
    with pytest.raises(ArgumentError):
        checked("t", SCHEMA, given, _no_path)


def test_a_value_outside_an_enum_is_told_the_values_it_may_take() -> None:
    """The fast path said "Input should be a valid string, not 'sideways'" of a string;
    the SDK's own validation (the in-process server) lists the values."""
    with pytest.raises(ArgumentError) as caught:
        checked("t", SCHEMA, {"query": "x", "mode": "sideways"}, _no_path)
    assert "mode should be 'ranked' or 'exhaustive', not 'sideways'" in caught.value.message
    with pytest.raises(ArgumentError) as caught:
        checked("t", SCHEMA, {"query": "x" * 10_000, "limit": "y" * 10_000}, _no_path)
    assert len(caught.value.message) < 400


def _no_path(value: object) -> None:
    raise AssertionError(f"the gate was asked about {value!r}: SCHEMA has no path")
