"""`reindex` on a scoped server: its `changed` flag tells nothing of the docs the scope hides
(docs/security.md: the number and changes of hidden docs are protected), as `GET /events`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio

SCOPED = "allow-reindex = true\nquery-sync = false\n"


async def _reindex(client: Client) -> dict[str, Any]:
    result = await client.call_tool("reindex", {})
    assert not result.is_error
    body: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return body


def _write(root: Path, rel: str, title: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    body = f"# {title}\n\nA page long enough for the indexer to take it in, about {title}.\n"
    (root / rel).write_text(body + "\n## Details\n\nMore words about the same subject.\n", "utf-8")


async def test_reindex_says_unchanged_when_only_hidden_docs_changed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",), extra=SCOPED)
    ingest(root)
    async with Client(build_server(Service(root))) as client:
        first = await _reindex(client)
        assert first["changed"] is False
        _write(root, "private/plan.md", "the vault roadmap")
        edited = await _reindex(client)
        _write(root, "private/new.md", "another hidden vault")
        added = await _reindex(client)
        (root / "private" / "plan.md").unlink()
        removed = await _reindex(client)
    assert edited == first
    assert added == first
    assert removed == first


async def test_reindex_still_says_changed_for_a_visible_doc(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",), extra=SCOPED)
    ingest(root)
    async with Client(build_server(Service(root))) as client:
        assert (await _reindex(client))["changed"] is False
        _write(root, "docs/billing.md", "billing retries")
        edited = await _reindex(client)
        _write(root, "docs/new.md", "quokka migrations")
        _write(root, "private/more.md", "more hidden vaults")
        added = await _reindex(client)
        (root / "docs" / "new.md").unlink()
        removed = await _reindex(client)
        quiet = await _reindex(client)
    assert edited["changed"] is True
    assert (added["changed"], added["documents"]) == (True, 3)
    assert (removed["changed"], removed["documents"]) == (True, 2)
    assert quiet["changed"] is False
