"""#27 finding 7: under `agent-scoped-roots`, `index_state` and `health_check` count only
what the scope shows and name no absolute path, and `GET /events` signals only changes of
documents the scope shows."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import make_repo
from tests.serve.test_routes import _events_request

PAGE = "# Private {i}\n\nA private page {i} the agent must not count, long enough.\n"
HIDDEN = {f"private/p{i}.md": PAGE.format(i=i) for i in range(4)}


@pytest.fixture
def scoped(tmp_path: Path) -> Path:
    """docs/ in scope (deploy, billing: one relates_to link between them); private/ holds
    five docs (plan and p0..p3) that link to docs/."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    for rel, text in HIDDEN.items():
        (root / rel).write_text(f"---\nrelates_to: docs/billing.md\n---\n{text}", encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


async def _tools(root: Path, *names: str) -> list[dict[str, Any]]:
    async with Client(build_server(Service(root))) as client:
        return [json.loads((await client.call_tool(n, {})).content[0].text) for n in names]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_state_and_health_count_only_what_the_scope_shows(
    scoped: Path, anyio_backend: str
) -> None:
    state, health = await _tools(scoped, "index_state", "health_check")
    kb = KnowledgeBase.open(scoped)
    everything = kb.state()
    assert everything.documents == 7 and everything.links >= 5  # what the index holds
    assert (state["documents"], health["documents"]) == (2, 2)
    in_docs = "SELECT COUNT(*) FROM chunks WHERE file_path LIKE 'docs/%'"
    visible_chunks = kb.read(lambda conn: conn.execute(in_docs).fetchone()[0])
    assert state["chunks"] == health["chunks"] == visible_chunks < everything.chunks
    assert state["links"] == 1  # deploy -> billing; the five private -> billing are hidden
    assert state["root"] == "." and str(scoped) not in json.dumps([state, health])


def test_an_unscoped_state_still_names_the_checkout(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    KnowledgeBase.open(root).ingest()
    state, _ = Service(root).state()
    assert state["root"] == str(root) and state["documents"] == 3


def _rewrite(path: Path, word: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(f"# Page\n\nThe {word} is the word of this page, long enough to index.\n")
    os.replace(temp, path)


def test_the_events_mark_moves_only_for_a_visible_change(scoped: Path) -> None:
    service = Service(scoped)
    service.kb().settings = service.kb().settings._replace(query_sync=False)
    routes = Routes(service)
    before, _ = routes._read_mark()
    _rewrite(scoped / "private" / "plan.md", "aardvark")
    KnowledgeBase.open(scoped).sync()
    hidden, data = routes._read_mark()
    assert hidden == before and data["generation"] > 0
    _rewrite(scoped / "docs" / "billing.md", "pangolin")
    KnowledgeBase.open(scoped).sync()
    visible, _ = routes._read_mark()
    assert visible != before


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_events_fire_for_an_in_scope_change_only(scoped: Path, anyio_backend: str) -> None:
    """A real stream: a sync of a hidden doc, two polls, then a sync of a visible one; the
    stream says `event: index` on connecting and once more, for the visible change."""
    service = Service(scoped)
    service.kb().settings = service.kb().settings._replace(query_sync=False)
    polls: list[int] = []
    steps: list[str] = []

    class Counting(Routes):
        def _read_mark(self) -> tuple[object, dict[str, Any]]:
            # the changes are made from the stream's own polls: no clock decides anything
            polls.append(1)
            if len(polls) == 2:
                _rewrite(scoped / "private" / "plan.md", "aardvark")
                KnowledgeBase.open(scoped).sync()
                steps.append("hidden")
            elif len(polls) == 5:
                _rewrite(scoped / "docs" / "billing.md", "pangolin")
                KnowledgeBase.open(scoped).sync()
                steps.append("visible")
            return super()._read_mark()

    routes = Counting(service, keepalive_s=3600, poll_s=0.001)
    app, scope = _events_request(service, routes)
    disconnect = anyio.Event()
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        chunks.append(message.get("body", b""))
        if sum(c.count(b"event: index") for c in chunks) >= 2:
            disconnect.set()

    with anyio.fail_after(20):
        await app(scope, receive, send)
    events = [json.loads(c.split(b"data: ")[1]) for c in chunks if b"event: index" in c]
    assert len(events) == 2 and steps == ["hidden", "visible"]
    assert len(polls) >= 5  # the second event came from the visible change's poll on
