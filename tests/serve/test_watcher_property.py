"""Always fresh with the watcher alone (#16): query-sync off, the watcher on.

One MCP session (the SDK's client against the real server) lives through random edits (the
editor pattern), in-place writes, creates, deletes, renames, commits and branch switches,
with no hook, no sync and no query-time check. After each step the test waits, bounded, for
`index_state` to say the index is fresh (only the watcher can make it so), then asks; every
answer given while the index says it is fresh must equal a fresh ingest of the tree at that
moment. Answers flagged stale are counted (none are expected once the watcher caught up).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.triggers.watcher import Watcher
from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.test_fresh_property import _mutate
from tests.serve.test_fresh_property import _text
from tests.serve.test_fresh_property import answers_match_a_fresh_ingest

pytestmark = pytest.mark.anyio

STEPS = 20
CONVERGE_S = 20.0


def _step(rng: random.Random, root: Path, step: int) -> str:
    if rng.random() < 0.2:  # a branch switch: everything committed, then the other branch
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"before switch {step}")
        current = git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
        git(root, "checkout", "-q", "side" if current != "side" else "main")
        return "switch"
    return _mutate(rng, root, step)


async def _converged(client: Client, watcher: Watcher, root: Path) -> dict[str, Any]:
    """index_state once it says fresh at the current HEAD; waits on the watcher's steps."""
    deadline = time.monotonic() + CONVERGE_S
    while True:
        checks = watcher.status().checks
        reply = await client.call_tool("index_state", {})
        state: dict[str, Any] = json.loads(reply.content[0].text)
        head = git(root, "rev-parse", "HEAD").strip()
        if not state["stale"] and state["as_of"] == head:
            return state
        left = deadline - time.monotonic()
        assert left > 0, f"the watcher did not catch up in {CONVERGE_S} s: {state}"
        watcher.wait_until(lambda st, c=checks: st.checks > c, min(left, 1.0))


@pytest.mark.parametrize("seed", [3, 4])
async def test_the_watcher_alone_keeps_every_answer_equal_to_a_fresh_ingest(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KENSO_QUERY_SYNC", "0")  # the server's own check is off
    rng = random.Random(seed)
    root = tmp_path / "repo"
    init_repo(root, {f"docs/n{i}.md": _text(rng, f"n{i}") for i in range(5)})
    git(root, "branch", "-M", "main")
    git(root, "branch", "side")
    KnowledgeBase.open(root).ingest()
    fresh_db = tmp_path / "fresh.db"
    service = Service(root)
    assert not service.kb().settings.query_sync
    service.watcher = Watcher(service.kb(), on_rules=service.reload_rules)
    service.watcher.start()
    ops: list[str] = []
    flagged = 0
    try:
        async with Client(build_server(service)) as client:
            for step in range(STEPS):
                ops.append(_step(rng, root, step))
                await _converged(client, service.watcher, root)
                if await answers_match_a_fresh_ingest(client, rng, root, fresh_db, ops) is None:
                    flagged += 1
                    continue
                health = await client.call_tool("health_check", {})
                assert json.loads(health.content[0].text)["watcher_ok"] is True
    finally:
        service.watcher.stop()
    assert flagged == 0, f"{flagged} answers flagged stale after the watcher caught up"
    assert "switch" in ops or seed != 3, ops
