"""`ref` answers follow the ignore rules live at each call, as the answers without `ref` do
(docs/security.md: "from the next call on"), and the revision cache (`revisions.db`) keeps a
revision's docs under the rules they were filtered with, never another rule set's.

Each test runs real MCP sessions (the SDK's client against the real server object) over a
real git repository; a new `Service` is a new server (an editor restart)."""

from __future__ import annotations

import json
import sqlite3
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

pytestmark = pytest.mark.anyio

PLAN = "docs/plan.md"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """v1 holds docs/plan.md (bluefalcon) and docs/other.md; HEAD deleted plan.md."""
    root = init_repo(
        tmp_path / "repo",
        {
            PLAN: doc("Plan", "The codename is bluefalcon and the launch date is secret. " * 5),
            "docs/other.md": doc("Other", "Nothing secret in this other page at all. " * 5),
        },
    )
    git(root, "tag", "v1")
    git(root, "rm", "-q", PLAN)
    git(root, "commit", "-qm", "remove plan")
    KnowledgeBase.open(root).ingest()
    return root


class Session:
    """One MCP session: each call's answer as (is_error, text)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
        result = await self.client.call_tool(tool, args)
        return result.is_error, result.content[0].text  # type: ignore[union-attr]

    async def search_docs(self) -> list[str]:
        failed, text = await self.call("search_docs", {"query": "bluefalcon", "ref": "v1"})
        assert not failed, text
        return [h["file_path"] for h in json.loads(text)]

    async def search(self) -> list[str]:
        failed, text = await self.call("search", {"query": "bluefalcon", "ref": "v1"})
        assert not failed, text
        return [h["path"] for h in json.loads(text)["results"]]


async def _fresh_server_finds(root: Path) -> list[str]:
    service = Service(root)
    try:
        async with Client(build_server(service)) as client:
            return await Session(client).search_docs()
    finally:
        service.revisions.close()


async def test_a_nested_cursorignore_added_mid_session_hides_the_page_at_the_next_ref_call(
    repo: Path,
) -> None:
    """Before: with v1 answered from revisions.db (an earlier server), the server's copy of
    v1 was kept and its scope verdicts never re-read, so the page just hidden by a new
    docs/.cursorignore came back, text included, until the watcher reloaded the rules."""
    assert await _fresh_server_finds(repo) == [PLAN]  # revisions.db now holds v1
    service = Service(repo)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            assert await session.search_docs() == [PLAN]
            write(repo, {"docs/.cursorignore": "plan.md\n"})
            assert await session.search_docs() == []
            assert await session.search() == []
            failed, text = await session.call("get_doc", {"path": PLAN, "ref": "v1"})
            assert failed and "ignored" in text and "bluefalcon" not in text
            (repo / "docs" / ".cursorignore").unlink()
            assert await session.search_docs() == [PLAN]
    finally:
        service.revisions.close()


async def test_the_search_tool_sees_a_nested_cursorignore_at_the_next_ref_call(
    repo: Path,
) -> None:
    assert await _fresh_server_finds(repo) == [PLAN]
    service = Service(repo)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            assert await session.search() == [PLAN]
            write(repo, {"docs/.cursorignore": "plan.md\n"})
            assert await session.search() == []
            assert await session.search_docs() == []
    finally:
        service.revisions.close()


async def test_an_ignore_rule_added_and_removed_leaves_no_wrong_revision_in_the_cache(
    repo: Path,
) -> None:
    """Before: after a call that re-read the rules while .cursorignore hid the page, the
    rule's removal was not seen by the next search at v1: it was filtered with the stale
    verdict, answered [], and kept in revisions.db under the digest of the rules without
    the ignore file, so every later server answered [] at v1 too."""
    service = Service(repo)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            assert await session.search_docs() == [PLAN]
            write(repo, {".cursorignore": f"{PLAN}\n"})
            assert await session.search_docs() == []
            assert await session.search() == []
            failed, _text = await session.call(
                "read_snippet", {"path": PLAN, "query": "bluefalcon", "ref": "v1"}
            )
            assert failed
            assert await session.search_docs() == []
            (repo / ".cursorignore").unlink()
            assert await session.search_docs() == [PLAN]
    finally:
        service.revisions.close()
    assert await _fresh_server_finds(repo) == [PLAN]


async def test_a_revision_cache_written_before_the_fix_is_not_trusted(repo: Path) -> None:
    """A revisions.db that a version with the bug may have filled (its rows can hold a
    revision filtered with other rules than the ones they name) is made again."""
    assert await _fresh_server_finds(repo) == [PLAN]
    cache = repo / ".kenso" / "revisions.db"
    conn = sqlite3.connect(cache)
    # the entry the bug left: v1 without the page, under the rules of today
    conn.execute("DELETE FROM revision_doc WHERE path = ?", (PLAN,))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    assert await _fresh_server_finds(repo) == [PLAN]


@pytest.fixture
def gone_folder(tmp_path: Path) -> Path:
    """v1 holds old/plan.md (bluefalcon) and docs/link.md, a link to it; HEAD removed both,
    so the work tree has no old/ folder."""
    root = init_repo(
        tmp_path / "repo",
        {
            "old/plan.md": doc("Plan", "The codename is bluefalcon and the launch date. " * 5),
            "docs/other.md": doc("Other", "Nothing secret in this other page at all. " * 5),
        },
    )
    (root / "docs" / "link.md").symlink_to("../old/plan.md")
    git(root, "add", "docs/link.md")
    git(root, "commit", "-qm", "a link")
    git(root, "tag", "v1")
    git(root, "rm", "-q", "-r", "old", "docs/link.md")
    git(root, "commit", "-qm", "remove old")
    KnowledgeBase.open(root).ingest()
    return root


async def test_a_folder_made_with_a_cursorignore_hides_its_page_at_the_next_ref_call(
    gone_folder: Path,
) -> None:
    """A revision's folder the work tree lacks has no rule file to watch. Before: the
    copy of v1 (and the revision cache) named none of its rule files, so a folder made
    later with a .cursorignore in it changed nothing: the page stayed in every answer."""
    root = gone_folder
    assert await _fresh_server_finds(root) == ["docs/link.md", "old/plan.md"]
    service = Service(root)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            assert await session.search_docs() == ["docs/link.md", "old/plan.md"]
            write(root, {"old/.cursorignore": "plan.md\n"})
            assert await session.search_docs() == []
            assert await session.search() == []
    finally:
        service.revisions.close()
    assert await _fresh_server_finds(root) == []


async def test_read_snippet_at_a_revision_refuses_a_link_to_a_page_hidden_since(
    gone_folder: Path,
) -> None:
    """Before: the scope kept its verdict on old/plan.md for the server's life (no rule
    file of a missing folder is watched), so read_snippet still followed the link of v1 to
    the page after old/.cursorignore hid it, and served its text."""
    root = gone_folder
    args = {"path": "docs/link.md", "query": "bluefalcon", "ref": "v1"}
    service = Service(root)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            failed, text = await session.call("read_snippet", args)
            assert not failed and "bluefalcon" in text
            write(root, {"old/.cursorignore": "plan.md\n"})
            failed, text = await session.call("read_snippet", args)
            assert failed and "bluefalcon" not in text
            failed, text = await session.call("get_doc", {"path": "old/plan.md", "ref": "v1"})
            assert failed and "bluefalcon" not in text
    finally:
        service.revisions.close()


async def _scores(session: Session) -> dict[str, float]:
    failed, text = await session.call("search_docs", {"query": "secret", "ref": "v1"})
    assert not failed, text
    return {h["file_path"]: h["score"] for h in json.loads(text)}


async def test_a_page_hidden_mid_session_moves_no_score_at_a_revision(repo: Path) -> None:
    """#27's rule at a revision: a hidden page's words reach no statistic. Before: the copy
    of v1 built from revisions.db named only the root rule files, so it was kept after
    docs/.cursorignore hid the page, and the page still counted in every score."""
    assert await _fresh_server_finds(repo) == [PLAN]
    service = Service(repo)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            assert set(await _scores(session)) == {PLAN, "docs/other.md"}
            write(repo, {"docs/.cursorignore": "plan.md\n"})
            after = await _scores(session)
    finally:
        service.revisions.close()
    fresh = Service(repo)
    try:
        async with Client(build_server(fresh)) as client:
            assert after == await _scores(Session(client))
    finally:
        fresh.revisions.close()
    assert set(after) == {"docs/other.md"}


async def test_a_time_filter_at_a_ref_is_a_tool_error(repo: Path) -> None:
    # the pages that differ at the ref carried modified 0 and failed the filter: the answer
    # was silently partial
    service = Service(repo)
    try:
        async with Client(build_server(service)) as client:
            session = Session(client)
            for args in ({"modified_after": "30d"}, {"query": "bluefalcon modified:30d"}):
                failed, text = await session.call(
                    "search", {"query": "bluefalcon", "ref": "v1", **args}
                )
                assert failed and "modified" in json.loads(text)["error"], text
            assert await session.search() == [PLAN]
    finally:
        service.revisions.close()
