"""`kenso-git serve` over stdio, spawned as a real process and driven by the SDK client."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.serve.conftest import KENSO_EXE
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import tool_call

pytestmark = pytest.mark.anyio


def _raw_session(
    root: Path, requests: list[dict[str, object]], env: dict[str, str]
) -> tuple[list[str], str]:
    """Send raw JSON-RPC lines, wait (bounded) for every answer, then close stdin."""
    want = {r["id"] for r in requests if "id" in r}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errfile:
        proc = subprocess.Popen(
            [str(KENSO_EXE), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errfile,
            text=True,
            cwd=root,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        stdout = proc.stdout
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(x) for x in stdout], daemon=True)
        reader.start()
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        got: list[str] = []
        seen: set[object] = set()
        deadline = time.monotonic() + 30
        while not want <= seen and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            got.append(line)
            with contextlib.suppress(ValueError, AttributeError):
                seen.add(json.loads(line).get("id"))
        proc.stdin.close()
        proc.wait(timeout=30)
        reader.join(timeout=10)
        stdout.close()
        errfile.seek(0)
        return got, errfile.read()


def _env() -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


async def test_an_agent_can_search_read_and_navigate_over_stdio(repo: Path) -> None:
    subprocess.run(
        [str(KENSO_EXE), "connect", "claude-code", "--write"],
        cwd=repo,
        env={**_env(), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        timeout=60,
    )
    entry = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["kenso-git"]
    assert entry["command"] == str(KENSO_EXE)  # not on PATH: the absolute path is written
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], cwd=repo, env=_env()
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        hits = await client.call_tool("search_docs", {"query": "canary marker alpha"})
        first = json.loads(hits.content[0].text)[0]["file_path"]
        doc = await client.call_tool("get_doc", {"path": first})
        related = await client.call_tool("get_related", {"path": first})
        snippet = await client.call_tool("read_snippet", {"path": first, "query": "canary"})
        refused = await client.call_tool("get_doc", {"path": "/etc/passwd"})
    assert {"search_docs", "get_doc", "get_related", "read_snippet"} <= names
    assert first == "docs/deploy.md"
    assert "canary marker alpha" in json.loads(doc.content[0].text)["content"]
    assert json.loads(related.content[0].text)[0]["related_path"] == "docs/billing.md"
    assert "canary" in json.loads(snippet.content[0].text)["text"]
    assert refused.is_error and json.loads(refused.content[0].text)["rule"] == "outside-root"


def test_stdout_carries_only_protocol_messages_and_logs_go_to_stderr(repo: Path) -> None:
    requests = [
        INIT,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        tool_call(3, "get_doc", {"path": "../secret"}),
        tool_call(4, "search_docs", {"query": "payment"}),
    ]
    out, err = _raw_session(repo, requests, {**_env(), "KENSO_LOG_LEVEL": "DEBUG"})
    messages = [json.loads(line) for line in out if line.strip()]
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    assert {m.get("id") for m in messages} == {1, 2, 3, 4}
    assert err.strip(), "debug logging should reach stderr"


def test_serve_without_an_index_does_not_create_one(tmp_path: Path) -> None:
    from tests.serve.conftest import make_repo

    root = make_repo(tmp_path / "repo")
    requests = [
        INIT,
        INITIALIZED,
        tool_call(2, "search_docs", {"query": "payment"}),
    ]
    out, _ = _raw_session(root, requests, _env())
    answers = {m["id"]: m for m in map(json.loads, out) if "id" in m}
    result = answers[2]["result"]
    assert result["isError"] is True
    assert "kenso-git ingest" in result["content"][0]["text"]
    assert not (root / ".kenso").exists()
