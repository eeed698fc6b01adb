"""Tool calls while another process holds the index's write lock (t49b, defect 1).

A running `kenso-git ingest`, a hook's sync or a suspended ingest holds `.kenso/sync.lock`.
`get_doc` of a page edited since then synced it with the command-line wait (600 s): the
call hung while `search` answered at once, flagged stale. Now it hands its sync to the
holder after a moment, as the query-time check does, and answers the work tree's page
flagged stale. And `reindex`, the one tool that syncs as a command does, waits for the
lock no longer than the call's budget (`call-budget`) has left, then says who holds it.

The holder is a real second process that takes the lock as a writer does and lets go only
when the test says so: a call that waits for it never answers, and the test fails on its
hang guard instead of passing."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from kenso_git.index.lock import LOCK_FILE
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio

HANG_GUARD_S = 60  # no answer by then: the call waits for the holder (600 s before the fix)
EDIT = "\n## Late addition\n\nA wombat paragraph written while the index was locked.\n"

# Takes the lock as every writer does (`index.lock.try_lock`: the fd, its pid written),
# says so, and lets go only when a line arrives on stdin.
_HOLDER = """
import sys
from pathlib import Path
from kenso_git.index.lock import release, try_lock
fd = try_lock(Path(sys.argv[1]))
print("held" if fd is not None else "busy", flush=True)
sys.stdin.readline()
if fd is not None:
    release(fd)
"""


@contextmanager
def lock_held(root: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding `root`'s index write lock until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(root / ".kenso" / LOCK_FILE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.communicate("go\n", timeout=HANG_GUARD_S)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any, Any]:
    with anyio.fail_after(HANG_GUARD_S):
        result = await client.call_tool(tool, args)
    text = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return result.is_error, result.structured_content, text


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


@pytest.mark.parametrize("scoped", [(), ("docs",)], ids=["whole", "scoped"])
async def test_get_doc_of_an_edit_answers_the_work_tree_while_another_process_writes(
    tmp_path: Path, scoped: tuple[str, ...]
) -> None:
    root = make_repo(tmp_path / "repo", scoped=scoped)
    ingest(root)
    async with Client(build_server(Service(root))) as client:
        # read once first: a scoped server builds its own index on first use, from the disk
        _, before, _ = await _call(client, "get_doc", {"path": "docs/deploy.md"})
        assert "wombat" not in before["content"] and "stale" not in before
        with lock_held(root) as holder:
            _append(root / "docs/deploy.md", EDIT)
            failed, got, text = await _call(client, "get_doc", {"path": "docs/deploy.md"})
            assert holder.poll() is None  # answered while the other writer still held the lock

        assert not failed, text
        assert "wombat paragraph" in got["content"]  # the page as the work tree holds it now
        assert got["title"] == "Deploy Guide"
        assert got["stale"] is True
        assert "another kenso-git process is writing the index" in got["stale_reason"]
        assert text["content"] == got["content"]
        # the holder synced the edit for it (the rerun mark): the next answer is fresh
        _, again, _ = await _call(client, "get_doc", {"path": "docs/deploy.md"})
        assert "wombat paragraph" in again["content"] and "stale" not in again


async def test_reindex_stops_waiting_for_the_lock_when_its_budget_is_spent(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", extra="allow-reindex = true\ncall-budget = 1\n")
    ingest(root)
    async with Client(build_server(Service(root))) as client:
        with lock_held(root) as holder:
            _append(root / "docs/deploy.md", EDIT)
            # two at once: one waits for the file lock, the other for this server's writer
            answers: list[tuple[bool, Any, Any]] = []

            async def reindex() -> None:
                answers.append(await _call(client, "reindex", {}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(reindex)
                tg.start_soon(reindex)
            assert holder.poll() is None  # both answered while the other writer held the lock

        for failed, _, text in answers:
            assert failed, text
            assert "write lock" in text["error"], text
        _, _, found = await _call(client, "search_docs", {"query": "wombat"})
        assert [hit["file_path"] for hit in found] == ["docs/deploy.md"]


async def test_reindex_stops_waiting_for_a_long_sync_of_the_server_when_its_budget_is_spent(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", extra="allow-reindex = true\ncall-budget = 1\n")
    ingest(root)
    service = Service(root)
    async with Client(build_server(service)) as client:
        with lock_held(root) as holder:
            _append(root / "docs/deploy.md", EDIT)
            # a sync of the server's own that takes long (as the watcher's after a big
            # checkout): here one that waits for the lock as a command does, with no budget
            waiting = threading.Event()
            kb = service.kb()
            writer = threading.Thread(target=lambda: kb.sync(warn=lambda _: waiting.set()))
            writer.start()
            assert waiting.wait(HANG_GUARD_S)  # it holds the server's writer turn
            failed, _, text = await _call(client, "reindex", {})
            assert holder.poll() is None  # answered while both writers still waited

        writer.join(HANG_GUARD_S)
        assert failed, text
        assert "another writer of this server" in text["error"], text
