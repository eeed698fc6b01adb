"""`get_doc` says stale as `search_docs` does. In a read-only checkout, a page edited since
the last sync is answered as the work tree holds it and the index is marked stale (ee4fa4c),
but the answer carried no `stale` flag, unlike a search's there, and it named the last
indexed commit as its `last_commit` although the text shown is the edit (t47, defect 2).
Now its structured result says `stale` with the reason, as `search_docs`' does (kenso's
text shape is unchanged), and `last_commit` is given only of the text the index holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.api.test_read_only_reads import read_only
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

ALPHA = doc("Alpha", "The zebra protocol handles retries across the payment gateway. " * 3)
BETA = doc("Beta", "The okapi ledger reconciles invoices at the end of every month. " * 3)
EDITED = doc("Beta", "The tapir ledger replaced the okapi one, edited since the sync. " * 3)
KENSO_KEYS = {"title", "content", "category", "audience", "tags"}


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    """docs/a.md committed by "add a", docs/b.md last changed by "edit b"; indexed at HEAD."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": ALPHA, ".gitignore": ".kenso/\n"})
    git(root, "commit", "-q", "--amend", "-m", "add a")
    write(root, {"docs/b.md": BETA})
    git(root, "add", "docs/b.md")
    git(root, "commit", "-q", "-m", "edit b")
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return root


async def _calls(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, Any]]:
    """Each call's (structured content, JSON text) on one in-memory MCP session of `root`."""
    out: list[tuple[Any, Any]] = []
    async with Client(build_server(Service(root))) as client:
        for tool, args in calls:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content
            out.append((result.structured_content, json.loads(result.content[0].text)))  # type: ignore[union-attr]
    return out


def _edit_b(root: Path) -> None:
    with (root / "docs/b.md").open("w", encoding="utf-8") as f:  # in place: the same inode
        f.write(EDITED)


@pytest.mark.anyio
@pytest.mark.parametrize("max_length", [None, 40], ids=["whole", "cut"])
async def test_get_doc_of_an_unsynced_edit_says_stale_and_names_no_commit(
    indexed: Path, max_length: int | None
) -> None:
    _edit_b(indexed)
    args: dict[str, Any] = {"path": "docs/b.md"}
    if max_length is not None:
        args["max_length"] = max_length
    with read_only(indexed / ".kenso"):
        (got, text), (hits, _) = await _calls(
            indexed, [("get_doc", args), ("search_docs", {"query": "ledger"})]
        )

    assert "tapir" in got["content"] or got.get("truncated") is True
    assert got["stale"] is True
    assert "sync failed" in got["stale_reason"] and "read-only" in got["stale_reason"]
    assert hits["stale"] is True and "sync failed" in hits["stale_reason"]  # as search_docs
    assert "last_commit" not in got and "uncommitted" not in got
    # kenso's text shape: its fields, no flag (as search_docs' text), and no commit either
    assert {k: text[k] for k in KENSO_KEYS} == {k: got[k] for k in KENSO_KEYS}
    assert not {"stale", "stale_reason", "last_commit", "uncommitted"} & set(text)


@pytest.mark.anyio
@pytest.mark.parametrize("max_length", [None, 40], ids=["whole", "cut"])
async def test_a_stale_answer_of_an_unedited_page_keeps_its_commit(
    indexed: Path, max_length: int | None
) -> None:
    _edit_b(indexed)  # the index is stale, docs/a.md is still the indexed text
    args: dict[str, Any] = {"path": "docs/a.md"}
    if max_length is not None:
        args["max_length"] = max_length
    with read_only(indexed / ".kenso"):
        ((got, text),) = await _calls(indexed, [("get_doc", args)])

    assert got["stale"] is True and "sync failed" in got["stale_reason"]
    assert got["last_commit"]["subject"] == "add a"
    assert text["last_commit"] == got["last_commit"]
    assert "zebra" in got["content"] or got.get("truncated") is True


@pytest.mark.anyio
async def test_a_fresh_answer_has_no_stale_flag_and_its_commit(indexed: Path) -> None:
    ((got, text),) = await _calls(indexed, [("get_doc", {"path": "docs/b.md"})])

    assert "stale" not in got and "stale_reason" not in got
    assert got["last_commit"]["subject"] == "edit b"
    assert text == got
