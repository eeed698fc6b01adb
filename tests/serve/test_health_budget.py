"""`health_check` runs under the call's budget like every other tool (r50 #3).

It ran with no budget at all: with `call-budget = 1`, another process holding the index's
write lock while more docs changed than a query syncs held it 5 s (the wait for that
writer), and one holding an exclusive SQLite lock held it for SQLite's whole busy wait (5 s;
10 minutes here, where the test makes that wait so long that a call waiting it out fails on
the hang guard). Now it answers within its budget and says what it could not learn: stale
with the reason, the lock, or `index: "unchecked"`, never ok about what it did not read.

The lock holders are real second processes (`tests/serve/test_lock_busy_reads.py`,
`tests/serve/test_sqlite_lock_budget.py`); the client is the SDK's, in memory."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store import connection
from kenso_git.triggers.watcher import Watcher
from tests.helpers import doc
from tests.helpers import init_repo
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.test_lock_busy_reads import lock_held
from tests.serve.test_sqlite_lock_budget import sqlite_lock_held

pytestmark = pytest.mark.anyio

HANG_GUARD_S = 30
ANSWERED_WITHIN_S = 4.0  # the budget is 1 s; before, 5 s (the writer wait) or SQLite's wait
TOO_MANY = 250  # more changed docs than a query syncs (`MAX_QUERY_SYNC_FILES`, 200)


async def _health(client: Client) -> tuple[float, dict[str, Any]]:
    started = time.monotonic()
    with anyio.fail_after(HANG_GUARD_S):
        result = await client.call_tool("health_check", {})
    assert not result.is_error, result
    return time.monotonic() - started, json.loads(result.content[0].text)  # type: ignore[union-attr]


def _add_pages(root: Path, count: int) -> None:
    for i in range(count):
        (root / "docs" / f"new{i}.md").write_text(doc(f"New {i}", "wombat words. " * 8))


@pytest.mark.timeout(HANG_GUARD_S + 15)
async def test_health_waits_for_another_writer_no_longer_than_its_budget(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", extra="call-budget = 1\n")
    ingest(root)
    _add_pages(root, TOO_MANY)
    async with Client(build_server(Service(root))) as client:
        with lock_held(root) as holder:
            took, health = await _health(client)
            assert holder.poll() is None  # answered while the other writer held the lock
    assert took < ANSWERED_WITHIN_S, took
    assert health["ok"] is True and health["index"] == "ok"  # it read the index
    assert health["stale"] is True  # ... and says that it could not bring it up to date
    assert f"{TOO_MANY} docs changed since the last sync" in health["stale_reason"]


@pytest.mark.timeout(HANG_GUARD_S + 15)
async def test_health_of_an_index_sqlite_keeps_locked_says_so_within_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "repo", extra="call-budget = 1\n")
    ingest(root)
    monkeypatch.setattr(connection, "READ_BUSY_MS", 600_000)  # waited out: the guard fails
    async with Client(build_server(Service(root))) as client:
        with sqlite_lock_held(root / ".kenso" / "docs.db") as holder:
            took, health = await _health(client)
            assert holder.poll() is None
        assert took < ANSWERED_WITHIN_S, took
        assert health["ok"] is False and health["index"] == "error"
        assert "locked by another process" in health["reason"]
        assert health["version"] and health["read_only"] is True  # what it knows all the same
        _, again = await _health(client)  # the lock gone, the same server says healthy
        assert again["ok"] is True and again["documents"] == 3


async def test_health_that_runs_out_of_budget_says_what_it_did_not_check(tmp_path: Path) -> None:
    # a scoped server's first use builds its scoped index: 1,000 docs are far more than
    # 10 ms of CPU (the least `call-cpu-budget` allows), so the budget stops that read
    pages: dict[str, str | bytes] = {
        f"docs/p{i}.md": doc(f"P{i}", "words here and there. " * 5) for i in range(1000)
    }
    pages["other/hidden.md"] = doc("Hidden", "hidden words")
    root = init_repo(tmp_path / "repo", pages)
    (root / ".kenso.toml").write_text(
        'call-cpu-budget = 10\nagent-scoped-roots = ["docs"]\n', encoding="utf-8"
    )
    KnowledgeBase.open(root).ingest()
    async with Client(build_server(Service(root))) as client:
        _, health = await _health(client)
    assert health["ok"] is False  # never healthy about an index it did not read through
    assert health["index"] == "unchecked"
    assert "were not checked" in health["reason"] and "call-cpu-budget" in health["reason"]
    assert health["documents"] == 0 and health["stale"] is None  # unknown, not zero-and-ok
    assert health["watcher_reason"] and health["version"]  # what it did learn is reported


@pytest.mark.timeout(HANG_GUARD_S + 15)
@pytest.mark.parametrize("tool", ["health_check", "index_state"])
async def test_a_status_call_waits_for_the_watchers_catch_up_no_longer_than_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    # both wait for the watcher's first check (`serve.status._after_catch_up`), 10 s at most:
    # here that check waits for SQLite's lock, which another process keeps
    root = make_repo(tmp_path / "repo", extra="call-budget = 1\n")
    ingest(root)
    monkeypatch.setattr(connection, "READ_BUSY_MS", 600_000)
    service = Service(root)
    watcher = service.watcher = Watcher(service.main_kb())
    async with Client(build_server(service)) as client:
        try:
            with sqlite_lock_held(root / ".kenso" / "docs.db") as holder:
                watcher.start()
                started = time.monotonic()
                with anyio.fail_after(HANG_GUARD_S):
                    result = await client.call_tool(tool, {})
                took = time.monotonic() - started
                assert holder.poll() is None
                assert watcher.status().checks == 0  # answered before the catch-up ended
        finally:
            watcher.stop()  # the lock let go, its catch-up goes on and ends
    assert took < ANSWERED_WITHIN_S, took
    text = json.loads(result.content[0].text)  # type: ignore[union-attr]
    if tool == "health_check":
        assert text["ok"] is False and "locked by another process" in text["reason"]
    else:
        assert result.is_error and "locked by another process" in text["error"]
