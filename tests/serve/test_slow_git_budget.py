"""A tool call's own freshness check is bounded by `call-budget` like its waits (r52 #1).

Before a read, a call asks `git status` of the whole tree. That git had no limit but its own
30 s: with a `core.fsmonitor` hook that hangs (or a huge tree, an NFS stall), a call under
`call-budget = 1` answered only when git was stopped, and then with "the call ran past its
time budget". Now the check runs on the knowledge base's check thread, and the call waits
for it no longer than its budget can spare: it answers from the index as it is, flagged
stale with a reason naming the setting, while git and the check go on; the check then syncs
what it found, a later call answers fresh, and git is reaped.

A real git whose status runs the repository's real fsmonitor hook, blocked until the test
releases it (no clock in the assertions), and a real MCP SDK client."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import check_index
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import answer
from tests.serve.rpc import end_stdio
from tests.serve.rpc import send
from tests.serve.rpc import spawn_stdio
from tests.serve.rpc import tool_call

HANG_GUARD_S = 120  # git's own limit is 30 s: the call before the fix answered after it
SETTLE_S = 60  # for the released check to sync, and a call to answer fresh


def _blocking_hook(folder: Path) -> Path:
    """An fsmonitor hook that says it started, then blocks until `release` exists; it
    answers nothing useful (exit 1), so git scans the tree itself after it."""
    hook = folder / "fsmonitor.sh"
    hook.write_text(
        "#!/bin/sh\n"
        f': > "{folder}/started"\n'
        f'while [ ! -e "{folder}/release" ]; do sleep 0.05; done\n'
        "exit 1\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    return hook


def _ticks() -> int:
    """Now, in the clock ticks since boot that /proc gives a process's start time in."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))


def _zombies(since: int = 0) -> set[str]:
    """This process's `git` children started at tick `since` or later that ended and were not
    reaped yet (an earlier test's, of the same pytest worker, are not this test's)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, _, rest = text.partition("(")[2].rpartition(")")
        fields = rest.split()
        started = int(fields[19])  # field 22 of /proc/PID/stat; `fields` starts at field 3
        ours = name == "git" and int(fields[1]) == os.getpid() and started >= since
        if ours and fields[0] == "Z":
            found.add(stat.parent.name)
    return found


def _reaped(since: int) -> set[str]:
    """The `git` zombies of this process started at tick `since` or later and still not
    reaped after `SETTLE_S`: a check reaps its git once it returns, which may be just after
    the call that waited for it answered."""
    deadline = time.monotonic() + SETTLE_S
    while (left := _zombies(since)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _hung_repo(tmp_path: Path) -> tuple[Path, Path]:
    """An indexed repository with `call-budget = 1` whose `git status` runs the blocking
    hook of `_blocking_hook`: the repository, and the hook's folder."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha wombat words. " * 20)})
    (root / ".kenso.toml").write_text("call-budget = 1\n", encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    git(root, "config", "core.fsmonitor", str(_blocking_hook(hooks)))
    return root, hooks


async def _search(client: Any, query: str) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool("search_docs", {"query": query})
    body = result.structured_content
    if body is None:
        body = json.loads(result.content[0].text)
    return bool(result.is_error), body


@pytest.mark.timeout(HANG_GUARD_S)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc for zombies")
def test_a_call_whose_git_status_hangs_answers_stale_within_its_budget(tmp_path: Path) -> None:
    from mcp import Client

    since = _ticks()  # a git zombie started before is another test's
    root, hooks = _hung_repo(tmp_path)
    (root / "docs/b.md").write_text(doc("Beta", "Beta numbat words. " * 20), encoding="utf-8")

    async def run() -> None:
        async with Client(build_server(Service(root))) as client:
            try:
                failed, body = await _search(client, "wombat")
                # answered while git still waited for the hook the test had not released
                assert (hooks / "started").exists()
                assert not (hooks / "release").exists()
            finally:
                (hooks / "release").touch()
            assert not failed, body
            assert [hit["file_path"] for hit in body["results"]] == ["docs/a.md"]
            assert body["stale"] is True
            assert "`call-budget`" in body["stale_reason"]
            # the check went on: it syncs the new page, and a later call answers fresh
            with anyio.fail_after(SETTLE_S):
                while True:
                    failed, body = await _search(client, "numbat")
                    assert not failed, body
                    if "stale" not in body:
                        break
                    await anyio.sleep(0.05)
            assert [hit["file_path"] for hit in body["results"]] == ["docs/b.md"]

    anyio.run(run)
    assert _reaped(since) == set()  # every git the checks started was reaped
    KnowledgeBase.open(root).sync()  # no one holds the index's write lock
    conn = connect_raw(root / ".kenso" / "docs.db")
    try:
        check_index(conn)  # the index was never left written half-way
    finally:
        conn.close()


@pytest.mark.timeout(HANG_GUARD_S)
def test_a_start_up_check_whose_git_status_hangs_holds_no_call_past_its_budget(
    tmp_path: Path,
) -> None:
    """`serve` checks the index in the background as it starts, with no budget (r52 #2): its
    git hangs on the hook too, and the first call waits for it no longer than its budget can
    spare (`Writes._refresh`), answering stale with the setting's name."""
    root, hooks = _hung_repo(tmp_path)
    proc = spawn_stdio(root)
    try:
        send(proc, INIT)
        answer(proc, 1)
        send(proc, INITIALIZED)
        send(proc, tool_call(7, "search_docs", {"query": "wombat"}))
        reply = answer(proc, 7)
        assert (hooks / "started").exists()  # the start-up check's git ran the hook ...
        assert not (hooks / "release").exists()  # ... and still waited for it
    finally:
        (hooks / "release").touch()
        end_stdio(proc, HANG_GUARD_S)
    result = reply["result"]
    assert not result.get("isError"), result["content"][0]["text"]
    body = result["structuredContent"]
    assert [hit["file_path"] for hit in body["results"]] == ["docs/a.md"]
    assert body["stale"] is True
    assert "`call-budget`" in body["stale_reason"]
