"""Tool calls while another connection holds an exclusive SQLite lock on the index (t49f #2).

Every kenso-git lock wait in a tool call ended with the call's budget (`call-budget`), but
SQLite's own busy wait on the server's connections did not: with `call-budget = 1`,
`search` and `search_docs` answered after 10 s (two 5 s busy waits), `get_doc` after 5 s.
Now a connection used inside a call waits for SQLite's locks no longer than the call has
left, and the call answers "the index is locked" within its budget.

The holder is a real second process (a plain sqlite3 connection, as another program or an
old kenso-git would be) that lets go only when the test says so. The readers' busy wait is
made 10 minutes here: a call that waits it out never answers, and the test fails on its
hang guard instead of passing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store import connection
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio

HANG_GUARD_S = 30  # no answer by then: the call waits out SQLite's busy timeout
UNBOUNDED_MS = 600_000  # the readers' busy wait in this test: far past the hang guard

# Holds an exclusive lock on the database (as `sqlite3 docs.db 'BEGIN EXCLUSIVE; ...'`
# would), says so, and lets go only when a line arrives on stdin.
_HOLDER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("CREATE TABLE IF NOT EXISTS held_by_test(x)")
print("held", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
c.close()
"""


@contextmanager
def sqlite_lock_held(db: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding an exclusive SQLite lock on `db` until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.communicate("go\n", timeout=HANG_GUARD_S)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    with anyio.fail_after(HANG_GUARD_S):
        result = await client.call_tool(tool, args)
    return result.is_error, json.loads(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.timeout(HANG_GUARD_S + 15)  # a call blocking the event loop is stopped here
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_docs", {"query": "deploy"}),
        ("search", {"query": "deploy"}),
        ("get_doc", {"path": "docs/deploy.md"}),
    ],
)
async def test_a_call_waits_for_sqlites_lock_no_longer_than_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    root = make_repo(tmp_path / "repo", extra="call-budget = 1\n")
    ingest(root)
    # the server's readers would wait 10 minutes for SQLite's lock, but for the budget
    monkeypatch.setattr(connection, "READ_BUSY_MS", UNBOUNDED_MS)
    async with Client(build_server(Service(root))) as client:
        with sqlite_lock_held(root / ".kenso" / "docs.db") as holder:
            failed, text = await _call(client, tool, args)
            assert holder.poll() is None  # answered while the other connection held the lock
        assert failed, text
        assert text["error"] == (
            "the index is locked by another process (waited until the call's time budget ran out)"
        )
        assert "try again" in text["hint"]
        # the lock gone, the same server answers
        failed, text = await _call(client, tool, args)
        assert not failed, text


def test_outside_a_call_a_reader_waits_as_long_as_before(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    ingest(root)
    from kenso_git.store.budget import call_budget

    conn = connection.open_reader(root / ".kenso" / "docs.db")
    try:
        with call_budget(1), connection.snapshot(conn):
            inside = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        with connection.snapshot(conn):  # the command line's wait again, after the call
            outside = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    finally:
        conn.close()
    assert inside <= 1000
    assert outside == connection.READ_BUSY_MS
