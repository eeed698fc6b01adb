"""A later `get_related` page is cut from the list its first page walked, and each page
judged by the scope gate the paths it shows and their `via`, but not the hops above `via`:
with the watcher and the query-time sync off, a row reached only through a doc hidden
since the first page (`.cursorignore`, a nested repository's `.git`) was still listed on
the next page, revealing a relation through the hidden doc. Each row a page shows is now
judged with every hop on its way from the start, and the list is walked again when the
gate refuses one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

FILLERS = 400  # depth-3 rows beside the one past the hidden hop: the list takes pages
FOLDER = "far/" + "a-long-folder-name-" * 8  # long paths: a few hundred rows fill a page
START, HIDDEN, MIDDLE, PAST = "a.md", "hop/b.md", "c.md", "zz-d.md"


def _doc(title: str, links: str) -> str:
    return doc(title, f"{title} explains how the system behaves in detail. {links}\n")


def _files() -> dict[str, str | bytes]:
    fillers = " ".join(f"[f{i}]({FOLDER}/f-{i:03d}.md)" for i in range(FILLERS))
    files: dict[str, str | bytes] = {
        START: _doc("Start", "It links [b](hop/b.md) only."),
        HIDDEN: _doc("Hop", "It links [c](../c.md)."),
        # c is reached from a only through b; so are the fillers and d (after them)
        MIDDLE: _doc("Middle", f"Behind the hop: {fillers} and [d](zz-d.md)."),
        PAST: _doc("Past", "The last row of the list."),
    }
    for i in range(FILLERS):
        files[f"{FOLDER}/f-{i:03d}.md"] = _doc(f"Filler {i}", "A filler page.")
    return files


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", _files())
    # no watcher and no query-time sync: the index stays as the first page saw it
    (root / ".kenso.toml").write_text("watch = false\nquery-sync = false\n", encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


async def _related(client: Client, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool("get_related", args)
    assert not result.is_error, result.content
    page = result.structured_content
    assert isinstance(page, dict)
    return page


def _hide(root: Path, how: str) -> None:
    if how == "cursorignore":
        (root / ".cursorignore").write_text("hop/\n", encoding="utf-8")
    else:  # a nested repository appears around the hop: its docs are its own
        (root / "hop" / ".git").mkdir()


@pytest.mark.parametrize("how", ["cursorignore", "nested-repo"])
async def test_a_later_page_lists_nothing_reached_through_a_doc_hidden_since(
    repo: Path, how: str
) -> None:
    args: dict[str, Any] = {"path": START, "depth": 3}
    async with Client(build_server(Service(repo))) as client:
        first = await _related(client, args)
        assert first["truncated"], "the list must take more than one page"
        shown = {(r["related_path"], r.get("via")) for r in first["results"]}
        assert (HIDDEN, None) in shown and (MIDDLE, HIDDEN) in shown
        assert (PAST, MIDDLE) not in shown  # the row past the hop is on a later page
        _hide(repo, how)
        later: list[dict[str, Any]] = []
        totals: list[int] = []
        cursor = first["next_cursor"]
        while cursor is not None:
            page = await _related(client, {**args, "cursor": cursor})
            later += page["results"]
            totals.append(page["total"])
            cursor = page["next_cursor"]
    # b is hidden now: nothing is reached from a any more, and no page says otherwise
    assert later == []
    assert set(totals) == {0}  # nor counts what it leads to


async def test_a_later_page_still_lists_what_no_hidden_doc_leads_to(repo: Path) -> None:
    args: dict[str, Any] = {"path": START, "depth": 3}
    async with Client(build_server(Service(repo))) as client:
        first = await _related(client, args)
        (repo / ".cursorignore").write_text(f"{FOLDER}/f-000.md\n", encoding="utf-8")
        rows = list(first["results"])
        cursor = first["next_cursor"]
        while cursor is not None:
            page = await _related(client, {**args, "cursor": cursor})
            rows += page["results"]
            cursor = page["next_cursor"]
    paths = [r["related_path"] for r in rows]
    assert (PAST, MIDDLE) in {(r["related_path"], r.get("via")) for r in rows}
    assert f"{FOLDER}/f-000.md" in paths[: len(first["results"])]  # shown before it was hidden
    assert paths.count(PAST) == 1
