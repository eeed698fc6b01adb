"""t48c D1: under `agent-scoped-roots`, a doc rewritten with the same bytes (a branch switch
and back, an editor's atomic save, `touch`) stayed unreadable: the scoped index copied a file
from the main index only when its blob id or status differed, so it kept the old stat data
and `get_doc`'s disk check ("changed on disk since it was indexed"), the gate's inode check
on hits and `index_state`'s count refused the doc for good; no sync brought it back. The
scoped index now follows the main index's stat data too, and the doc is served exactly as
on a server without the scope."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

ALPHA = doc("Alpha", "Public alpha text about widgets, long enough to be indexed for sure. " * 2)
BETA = doc("Beta", "Beta text about gadgets, long enough to be indexed by the tool here. " * 2)
SECRET = doc("Secret", "A private page about sprockets the agent must never be shown at all. " * 2)
FEATURE = doc("Alpha", "The feature branch text about widgets, other words than on main. " * 2)


def _checkout_and_back(root: Path) -> None:
    git(root, "checkout", "-q", "feature")
    git(root, "checkout", "-q", "main")


def _atomic_save(root: Path) -> None:
    """An editor's save without changes: a copy of the same bytes renamed over the file."""
    target = root / "docs" / "a.md"
    temp = target.with_name(".a.md.swp")
    shutil.copyfile(target, temp)
    os.replace(temp, target)


def _touch(root: Path) -> None:
    """`touch` to a time in the past: new mtime and ctime, same inode and bytes."""
    target = root / "docs" / "a.md"
    mtime = target.stat().st_mtime_ns - 60 * 10**9
    os.utime(target, ns=(mtime, mtime))


REWRITES: dict[str, Callable[[Path], None]] = {
    "checkout-and-back": _checkout_and_back,
    "atomic-save": _atomic_save,
    "touch": _touch,
}


def _repo(root: Path, *, scoped: bool) -> Path:
    """docs/a.md and docs/b.md, private/secret.md hidden by the scope (so a scoped server
    reads its own index), a branch `feature` with another docs/a.md; indexed on main."""
    init_repo(root, {"docs/a.md": ALPHA, "docs/b.md": BETA, "private/secret.md": SECRET})
    git(root, "checkout", "-q", "-b", "feature")
    write(root, {"docs/a.md": FEATURE})
    git(root, "commit", "-q", "-am", "feature")
    git(root, "checkout", "-q", "main")
    if scoped:
        (root / ".kenso.toml").write_text('agent-scoped-roots = ["docs"]\n', encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, args)
    return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]


async def _served(client: Client) -> dict[str, Any]:
    """What the session serves of docs/a.md: get_doc's title (or error), the paths a search
    for its word finds, and the documents `index_state` counts."""
    failed, page = await _call(client, "get_doc", {"path": "docs/a.md"})
    _, hits = await _call(client, "search_docs", {"query": "widgets"})
    _, state = await _call(client, "index_state", {})
    return {
        "get_doc": page.get("error") if failed else page["title"],
        "search": sorted({hit["file_path"] for hit in hits}),
        "documents": state["documents"],
    }


EXPECTED = {"get_doc": "Alpha", "search": ["docs/a.md"], "documents": 2}


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "unscoped"])
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
async def test_a_same_bytes_rewrite_is_served_in_a_live_session(
    tmp_path: Path, rewrite: str, scoped: bool, anyio_backend: str
) -> None:
    root = _repo(tmp_path / "repo", scoped=scoped)
    expected = {**EXPECTED, "documents": 2 if scoped else 3}
    async with Client(build_server(Service(root))) as client:
        assert await _served(client) == expected  # the scoped index is made here
        REWRITES[rewrite](root)
        assert (root / "docs" / "a.md").read_text(encoding="utf-8") == ALPHA
        assert await _served(client) == expected
        assert await _served(client) == expected  # and stays so


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "unscoped"])
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
async def test_a_sync_after_a_same_bytes_rewrite_lets_a_new_server_serve_it(
    tmp_path: Path, rewrite: str, scoped: bool, anyio_backend: str
) -> None:
    """Query-time sync off: the error's hint (`kenso-git sync`) is what brings the doc back,
    on a server started after the sync, as without the scope."""
    root = _repo(tmp_path / "repo", scoped=scoped)
    expected = {**EXPECTED, "documents": 2 if scoped else 3}
    async with Client(build_server(Service(root))) as client:
        assert await _served(client) == expected
    REWRITES[rewrite](root)
    KnowledgeBase.open(root).sync()
    service = Service(root)
    service.kb().settings = service.kb().settings._replace(query_sync=False)
    async with Client(build_server(service)) as client:
        assert await _served(client) == expected


@pytest.mark.parametrize("scoped", [True, False], ids=["scoped", "unscoped"])
def test_a_doc_written_while_indexed_is_served_once_the_clock_passed_it(
    tmp_path: Path, scoped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose mtime is not before the sync that read it is read again by the next
    one (racy git). Both indexes read docs/a.md with an mtime an hour ahead: its stat data
    cannot vouch for it, its bytes (the indexed ones) do, so it is served (t48d, defect 2:
    it was refused until the clock passed it). Once the clock is past it, the main index
    reads it again and only its `seen_ns` moves: the scoped index follows, and the doc is
    served as without the scope."""
    root = _repo(tmp_path / "repo", scoped=scoped)
    kb = Service(root).kb()
    assert kb.get_doc("docs/a.md")["title"] == "Alpha"  # the scoped index is made here
    ahead = time.time_ns() + 3600 * 10**9
    os.utime(root / "docs" / "a.md", ns=(ahead, ahead))
    assert kb.get_doc("docs/a.md")["title"] == "Alpha"  # racy: settled by its bytes
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 7200 * 10**9)  # the clock we don't own
    assert kb.get_doc("docs/a.md")["title"] == "Alpha"
