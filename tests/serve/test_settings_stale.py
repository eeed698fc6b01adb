"""A server of an index parsed by another kenso-git version or with other chunk settings:
every read tool and the status tools say `stale` with what to do until a sync parses every
doc again; a scoped index follows that re-parse; the watcher's first check runs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.index.freshness import REPARSE_DUE
from kenso_git.index.freshness import settings_fingerprint
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.index.test_refresh_settings import OLD
from tests.index.test_refresh_settings import recorded
from tests.index.test_refresh_settings import set_recorded
from tests.serve.test_watcher import WAIT_S
from tests.serve.test_watcher import Running
from tests.serve.test_watcher import _kb

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "payment"}),
    ("get_doc", {"path": "docs/billing.md"}),
    ("index_state", {}),
    ("health_check", {}),
]


async def _answers(root: Path) -> list[dict[str, Any]]:
    """The structured answer of each of `CALLS` on one in-memory MCP session of `root`."""
    out: list[dict[str, Any]] = []
    async with Client(build_server(Service(root))) as client:
        for tool, args in CALLS:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content
            out.append(result.structured_content or json.loads(result.content[0].text))  # type: ignore[union-attr]
    return out


def _scoped_dbs(root: Path) -> list[Path]:
    return sorted((root / ".kenso" / "scopes").glob("*.db"))


@pytest.mark.anyio
@pytest.mark.parametrize("fixture", ["repo", "scoped_repo"])
async def test_every_tool_says_stale_with_the_reason_until_a_sync(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    root: Path = request.getfixturevalue(fixture)
    scoped = fixture == "scoped_repo"
    await _answers(root)  # a scoped server makes its scoped index now
    dbs = [root / ".kenso" / "docs.db", *_scoped_dbs(root)]
    assert len(dbs) == (2 if scoped else 1)
    for db in dbs:
        set_recorded(db, OLD)

    for answer in await _answers(root):
        assert answer["stale"] is True, answer
        assert answer["stale_reason"] == REPARSE_DUE, answer
    assert [recorded(db) for db in dbs] == [OLD] * len(dbs)  # no query parsed every doc

    KnowledgeBase.open(root).sync()  # the main index only: a scoped one follows it
    for answer in await _answers(root):
        assert answer.get("stale") in (None, False) and answer.get("stale_reason") is None
    current = settings_fingerprint(KnowledgeBase.open(root).settings)
    assert [recorded(db) for db in dbs] == [current] * len(dbs)


def test_the_watchers_first_check_parses_every_doc_again(repo: Path) -> None:
    db = repo / ".kenso" / "docs.db"
    set_recorded(db, OLD)
    run = Running(_kb(repo), poll_only=True, poll_s=0.2)  # query-time sync off
    run.watcher.start()
    try:
        status = run.watcher.wait_until(lambda st: st.checks >= 1, WAIT_S)
        assert status.ok is True, status
        note = run.notes.get(timeout=WAIT_S)
        assert note.full and note.changed == 3  # every indexed doc, though none changed
        assert recorded(db) == settings_fingerprint(run.kb.settings)
    finally:
        run.watcher.stop()
        run.kb.close()
