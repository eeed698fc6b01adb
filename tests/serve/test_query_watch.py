"""`query_watch` of health_check and index_state, through the SDK's client against the real
server: whether the query-time check is vouched for by the inotify watch (index/quiet.py),
and if not, why, in words that name no path; folders are counted only without a scope."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.index import quiet
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service

pytestmark = pytest.mark.anyio
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


async def _both(client: Client) -> list[dict[str, Any] | None]:
    """`query_watch` of health_check and of index_state, as structured and as text."""
    out: list[dict[str, Any] | None] = []
    for tool in ("health_check", "index_state"):
        result = await client.call_tool(tool, {})
        assert not result.is_error and result.structured_content is not None
        watch = result.structured_content["query_watch"]
        assert json.loads(result.content[0].text)["query_watch"] == watch
        out.append(watch)
    return out


async def _armed(client: Client, service: Service) -> None:
    """A second query-time check makes the watch; wait for its walk to end."""
    await client.call_tool("search_docs", {"query": "payment"})
    watch = service.main_kb()._quiet
    assert watch is not None and watch.wait_armed(60)


@linux_only
async def test_the_tools_say_when_the_watch_vouches_for_the_check(repo: Path) -> None:
    service = Service(repo)
    async with Client(build_server(service)) as client:
        first = await client.call_tool("health_check", {})
        assert first.structured_content is not None
        not_yet = {"state": "arming", "reason": quiet.NOT_YET, "folders": 0}
        assert first.structured_content["query_watch"] == not_yet
        await _armed(client, service)
        # the root, docs/ and private/ (ignored/ is gitignored: never walked)
        armed = {"state": "armed", "reason": None, "folders": 3}
        assert await _both(client) == [armed, armed]
        (repo / "docs" / "new").mkdir()
        again = {"state": "arming", "reason": quiet.WALK_AGAIN, "folders": 0}
        watch = (await client.call_tool("index_state", {})).structured_content
        assert watch is not None and watch["query_watch"] in (again, {**armed, "folders": 4})


@linux_only
async def test_a_scoped_agent_learns_nothing_of_the_watch(
    scoped_repo: Path, tmp_path: Path
) -> None:
    # a hard link to a doc the scope hides sets the whole tree's watch aside: an agent
    # seeing that state would learn of the hidden doc (#27), so a scope gets null
    os.link(scoped_repo / "private" / "plan.md", tmp_path / "other-name.md")
    service = Service(scoped_repo)
    async with Client(build_server(service)) as client:
        await client.call_tool("health_check", {})
        await _armed(client, service)
        seen = await _both(client)
    assert seen == [None, None]
    report = service.main_kb().query_watch()  # the operator's library still says why
    assert report.state == "aside" and report.reason is not None
    assert "hard-linked" in report.reason and "plan" not in report.reason


async def test_query_watch_off_is_said(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENSO_QUERY_WATCH", "0")
    async with Client(build_server(Service(repo))) as client:
        for _ in range(3):
            await client.call_tool("search_docs", {"query": "payment"})
        off = {"state": "off", "reason": quiet.OFF_SETTING, "folders": 0}
        assert await _both(client) == [off, off]
