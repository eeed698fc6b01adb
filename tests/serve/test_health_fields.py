"""`health_check`'s `watcher_ok` and `read_only` say what this server does (docs/mcp-tools.md).

- A watcher that is on (the default) but not running yet is "starting", never "off": the
  SDK-free stdio loop starts it after its first answer, and that answer said
  `watcher_ok: null, "the watcher is off (serve --no-watch or watch = false)"`.
- `read_only` is true when no tool the server offers writes: over HTTP `reindex` is never
  offered, yet `allow-reindex = true` made health say `read_only: false` there.

Real servers: `kenso-git serve` over stdio and HTTP, driven by the SDK's clients.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
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
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import server_env

pytestmark = pytest.mark.anyio

STARTING = "the watcher is starting"


@pytest.fixture
def reindex_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", extra="allow-reindex = true\n")
    ingest(root)
    return root


def _stdio(root: Path, *args: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", *args], cwd=root, env=server_env(**env)
    )


async def _health(client: Client) -> dict[str, Any]:
    result = await client.call_tool("health_check", {})
    assert not result.is_error, result
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


async def test_a_watcher_not_running_yet_is_starting_not_off(repo: Path) -> None:
    async with Client(_stdio(repo)) as client:
        first = await _health(client)
        # the loop starts its watcher once this first call is answered
        assert first["watcher_ok"] is not None, first
        assert (first["watcher_ok"], first["watcher_reason"]) in {
            (False, STARTING),
            (True, "watching (events)"),
            (True, "watching (polling)"),
        }, first
        with anyio.fail_after(30):
            later = first
            while later["watcher_ok"] is not True:
                later = await _health(client)
                assert (later["watcher_ok"], later["watcher_reason"]) != (None, None)
                assert later["watcher_ok"] is not None, later
        assert "watching" in later["watcher_reason"], later


async def test_no_watch_is_still_off(repo: Path) -> None:
    async with Client(_stdio(repo, "--no-watch")) as client:
        health = await _health(client)
    assert health["watcher_ok"] is None
    assert health["watcher_reason"] == "the watcher is off (serve --no-watch or watch = false)"


async def test_read_only_is_false_only_where_reindex_is_offered(reindex_repo: Path) -> None:
    for env in ({}, {"KENSO_MCP_SDK": "1"}):
        async with Client(_stdio(reindex_repo, "--no-watch", **env)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            health = await _health(client)
        assert "reindex" in tools, env
        assert health["read_only"] is False, env
    async with Client(build_server(Service(reindex_repo), http=True)) as client:
        assert "reindex" not in {t.name for t in (await client.list_tools()).tools}
        assert (await _health(client))["read_only"] is True


async def test_read_only_without_allow_reindex(repo: Path) -> None:
    async with Client(_stdio(repo, "--no-watch")) as client:
        assert (await _health(client))["read_only"] is True
    async with Client(build_server(Service(repo))) as client:
        assert (await _health(client))["read_only"] is True


async def test_http_never_offers_reindex_and_says_read_only(reindex_repo: Path) -> None:
    with running_http_server(reindex_repo, args=("--no-watch",)) as server:
        plain = httpx.get(f"{server.base}/health", headers=server.auth(), timeout=10)
        async with (
            httpx2.AsyncClient(headers=server.auth()) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            tools = {t.name for t in (await client.list_tools()).tools}
            health = await _health(client)
    assert plain.status_code == 200
    assert "reindex" not in tools
    assert plain.json()["read_only"] is True
    assert health["read_only"] is True


async def test_a_stopped_watcher_is_not_said_to_be_watching(repo: Path) -> None:
    from kenso_git.triggers.watcher import Watcher

    service = Service(repo)
    service.watcher = Watcher(service.main_kb(), on_rules=service.reload_rules)
    service.watcher.start()
    service.watcher.wait_until(lambda st: st.checks >= 1, 30.0)
    service.watcher.stop()
    async with Client(build_server(service)) as client:
        health = await _health(client)
    assert health["watcher_ok"] is False, health
    assert "stopped" in health["watcher_reason"], health
