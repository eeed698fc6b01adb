"""Damage in the middle of the index file is reported by `health_check`, `index_state` and
`stats`, as `sync` reports it, not as a healthy index whose every read then fails.

docs/mcp-tools.md: "An unusable or missing index gives ok: false with a reason and the
command that fixes it"; docs/git-integration.md: damaged pages are named whenever the file
changed since a kenso-git writer last left it (`docs.db.verified`). Pages are read only
then, once per change of the file: an index as its writer left it costs a stat.

Real index files, damaged the way tester t49d's repro does (20 pages of 4 KB written into
the middle, here deterministic bytes); the SDK's in-memory client; the CLI in a process.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from mcp.types import TextContent

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store import integrity
from kenso_git.store import stamp
from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli

pytestmark = pytest.mark.anyio

REBUILD = "kenso-git ingest --rebuild"
DOCS: dict[str, str | bytes] = {
    f"docs/area{i % 7}/page{i}.md": doc(f"Page {i}", f"uniq{i} words of page {i} to index. " * 90)
    for i in range(240)
}


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", DOCS)
    KnowledgeBase.open(root).ingest()
    return root


def _damage_middle(db: Path) -> None:
    """Write 20 pages of 4 KB of fixed noise into the middle of the file (`dd seek=size/2`)."""
    size = db.stat().st_size
    start = size // 4096 // 2 * 4096
    length = min(20 * 4096, size - start - 4096)
    assert length > 4096, size
    with db.open("r+b") as out:
        out.seek(start)
        out.write(random.Random(49).randbytes(length))


def _json(result: CallToolResult) -> Any:
    content = result.content[0]
    assert isinstance(content, TextContent), content
    return json.loads(content.text)


async def _call(root: Path, tool: str) -> tuple[bool, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, {})
    return bool(result.is_error), _json(result)


async def test_mid_file_damage_is_named_by_health_index_state_and_stats(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    _damage_middle(db)

    failed, health = await _call(indexed, "health_check")
    assert not failed
    assert health["ok"] is False, health
    assert health["index"] == "error"
    assert health["reason"].startswith(".kenso/docs.db: the index database is corrupt"), health
    assert REBUILD in health["reason"]

    failed, state = await _call(indexed, "index_state")
    assert failed, state
    assert "corrupt" in state["error"] and REBUILD in state["hint"], state

    proc = cli(indexed, "stats")
    assert proc.returncode == 1, proc.stdout
    assert f"{db}: the index database is corrupt" in proc.stderr, proc.stderr
    assert REBUILD in proc.stderr
    assert "fresh" not in proc.stdout


async def test_a_read_that_met_damage_is_reported_by_health(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    _damage_middle(db)
    stamp.record(db)  # damage the stamp cannot see (written within the writer's clock tick)
    service = Service(indexed)
    async with Client(build_server(service)) as client:
        before = _json(await client.call_tool("health_check", {}))
        # a listing of every match reads every row of the chunks: it meets the damage (a
        # ranked page reads only the rows it may show, which the damage may spare)
        found = await client.call_tool("search", {"query": "words", "mode": "exhaustive"})
        after = _json(await client.call_tool("health_check", {}))
    assert before["ok"] is True  # no page is read when the file is as its writer left it
    assert found.is_error, found
    assert after["ok"] is False, after
    assert "corrupt" in after["reason"] and REBUILD in after["reason"], after


async def test_an_index_as_its_writer_left_it_is_not_read_page_by_page(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = indexed / ".kenso" / "docs.db"
    checks: list[Path] = []
    real = integrity.check_pages

    def counted(conn: sqlite3.Connection, db_path: Path) -> None:
        checks.append(db_path)
        real(conn, db_path)

    monkeypatch.setattr(integrity, "check_pages", counted)
    assert (await _call(indexed, "health_check"))[1]["ok"] is True
    assert not (await _call(indexed, "index_state"))[0]
    assert checks == []

    st = db.stat()  # changed since the writer left it (sound): read once, then vouched for
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert not stamp.matches(db)
    assert (await _call(indexed, "health_check"))[1]["ok"] is True
    assert (await _call(indexed, "health_check"))[1]["ok"] is True
    assert checks == [db]
    assert stamp.matches(db)  # the next process (a sync, `stats`) need not read it either


def test_hooks_status_lists_the_hooks_and_says_the_index_is_corrupt(indexed: Path) -> None:
    """`hooks status` reads the index's freshness too; a damaged file must not hide the hooks."""
    _damage_middle(indexed / ".kenso" / "docs.db")
    shown = cli(indexed, "hooks", "status")
    assert shown.returncode == 0, shown.stderr
    assert "index: corrupt (run `kenso-git ingest --rebuild`)" in shown.stdout, shown.stdout
    data = json.loads(cli(indexed, "hooks", "status", "--json").stdout)
    assert data["index"] == "corrupt"
