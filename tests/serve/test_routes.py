"""`GET /search` and `GET /events` beside `/mcp` (#16, #17 item 4): the same JSON, the same
gate and guards, bounded streams.

A real `kenso-git serve --transport http` process (its watcher on, query-sync off, so the
index changes only through the watcher); the keepalive is checked on the real ASGI app with a
short period, driven through the ASGI interface.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.routes import MAX_STREAMS
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.http.transport import Dispatch
from kenso_git.serve.http.transport import Guard
from kenso_git.serve.http.transport import GuardPolicy
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server

OFF = {"KENSO_QUERY_SYNC": "0"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("routes") / "repo", scoped=("docs",))
        ingest(root)
        with running_http_server(root, env=OFF) as running:
            yield running


def _get(server: HttpServer, route: str, **params: object) -> httpx.Response:
    return httpx.get(f"{server.base}{route}", params=params, headers=server.auth(), timeout=10)


def test_search_answers_what_the_search_tool_answers(server: HttpServer) -> None:
    reply = _get(server, "/search", q="payment", page_size=1)
    assert reply.status_code == 200, reply.text
    expected, _ = Service(server.root).search("payment", page_size=1)
    got, want = reply.json(), json.loads(json.dumps(expected))
    # as_of is the index's last sync: the server's watcher may sync between the two calls
    assert abs(got.pop("as_of") - want.pop("as_of")) <= 60
    assert got == want
    assert reply.json()["returned"] == 1 and reply.json()["has_more"] is True


def test_search_pages_with_the_query_string_fields(server: HttpServer) -> None:
    first = _get(server, "/search", q="payment", page_size=1).json()
    second = _get(server, "/search", q="payment", page_size=1, cursor=first["next_cursor"]).json()
    assert first["results"][0]["path"] != second["results"][0]["path"]
    exhaustive = _get(server, "/search", q="ext:md", mode="exhaustive", path="docs").json()
    assert [r["path"] for r in exhaustive["results"]] == ["docs/billing.md", "docs/deploy.md"]


def test_search_goes_through_the_scope_gate(server: HttpServer) -> None:
    paths = [r["path"] for r in _get(server, "/search", q="payment").json()["results"]]
    assert paths and all(p.startswith("docs/") for p in paths)  # private/ is out of scope
    refused = _get(server, "/search", q="payment", path="private")
    assert refused.status_code == 403
    assert refused.json()["rule"] and "private" in refused.json()["error"]
    inside = _get(server, "/search", q='in:"private" payment')
    assert inside.status_code == 403


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"q": "size:>>3"}, "size"),
        ({"q": "payment", "page_size": "ten"}, "page_size"),
        ({}, "q"),
    ],
)
def test_bad_search_input_is_a_clear_400(
    server: HttpServer, params: dict[str, str], named: str
) -> None:
    reply = _get(server, "/search", **params)
    assert reply.status_code == 400
    assert named in reply.json()["error"]


@pytest.mark.parametrize("route", ["/search", "/events"])
def test_routes_have_the_guards_of_mcp(server: HttpServer, route: str) -> None:
    url = f"{server.base}{route}?q=payment"
    assert httpx.get(url, timeout=10).status_code == 401
    evil = {**server.auth(), "Origin": "https://evil.example"}
    assert httpx.get(url, headers=evil, timeout=10).status_code == 403
    rebound = {**server.auth(), "Host": "evil.example"}
    assert httpx.get(url, headers=rebound, timeout=10).status_code == 403
    assert httpx.post(url, headers=server.auth(), timeout=10).status_code == 405


def _events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            yield name, json.loads(line[6:])


def test_events_say_when_the_watcher_changed_the_index(server: HttpServer) -> None:
    with httpx.stream("GET", f"{server.base}/events", headers=server.auth(), timeout=20) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = _events(stream.iter_lines())
        name, first = next(events)
        assert name == "index" and isinstance(first["generation"], int)
        target = server.root / "docs" / "billing.md"
        temp = target.with_name(".billing.md.tmp")
        temp.write_text(
            "# Billing\n\nThe pangolin ledger is the word of this document, long enough.\n",
            encoding="utf-8",
        )
        os.replace(temp, target)
        name, changed = next(events)  # the read timeout bounds the wait
        assert name == "index" and changed["generation"] > first["generation"]
    hits = _get(server, "/search", q="pangolin").json()["results"]
    assert [h["path"] for h in hits] == ["docs/billing.md"]


def test_event_streams_are_capped_and_do_not_starve_other_requests(server: HttpServer) -> None:
    with contextlib.ExitStack() as stack:
        client = stack.enter_context(httpx.Client(headers=server.auth(), timeout=20))
        open_lines = []  # kept: a dropped line iterator closes its connection
        for _ in range(MAX_STREAMS):
            stream = stack.enter_context(client.stream("GET", f"{server.base}/events"))
            assert stream.status_code == 200
            open_lines.append(stream.iter_lines())
            assert next(open_lines[-1]).startswith("event: index")  # open and counted
        extra = httpx.get(f"{server.base}/events", headers=server.auth(), timeout=10)
        assert extra.status_code == 503 and extra.headers["Retry-After"]
        assert _get(server, "/health").json()["ok"] is True
        assert _get(server, "/search", q="payment").status_code == 200
    # Closed streams free their places.
    with httpx.stream("GET", f"{server.base}/events", headers=server.auth(), timeout=20) as s:
        assert s.status_code == 200


def _events_request(service: Service, routes: Routes) -> tuple[Guard, dict[str, Any]]:
    """The guarded app (no MCP transport behind it) and an authorised `GET /events` scope."""
    policy = GuardPolicy(token="t" * 32, bind_host="127.0.0.1", allow_remote=False)
    dispatch = Dispatch(lambda *_: None, service, Lanes(), routes)  # type: ignore[arg-type]
    app = Guard(dispatch, policy)
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/events",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:1"), (b"authorization", b"Bearer " + b"t" * 32)],
    }
    return app, scope


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_quiet_stream_sends_keepalives(tmp_path: Path, anyio_backend: str) -> None:
    root = make_repo(tmp_path / "repo")
    ingest(root)
    service = Service(root)
    routes = Routes(service, keepalive_s=0.05, poll_s=0.01)
    app, scope = _events_request(service, routes)
    disconnect = anyio.Event()
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        chunks.append(message.get("body", b""))
        if sum(c.count(b": keepalive") for c in chunks) >= 2:
            disconnect.set()

    with anyio.fail_after(20):
        await app(scope, receive, send)  # returns once the client went away
    body = b"".join(chunks)
    assert body.startswith(b"event: index\n") and body.count(b": keepalive\n\n") >= 2
    assert routes.streams == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_watcher_sync_is_sent_without_waiting_for_the_poll(
    tmp_path: Path, anyio_backend: str
) -> None:
    from kenso_git.triggers.watcher import Watcher

    root = make_repo(tmp_path / "repo")
    ingest(root)
    service = Service(root)
    kb = service.kb()
    kb.settings = kb.settings._replace(query_sync=False)  # only the watcher writes
    service.watcher = Watcher(kb)
    service.watcher.start()
    ready = service.watcher.wait_until(lambda st: st.checks >= 1 and st.mode == "events", 20)
    assert ready.mode == "events", ready
    # Polls an hour apart: only the watcher's poke can send the second event in time.
    routes = Routes(service, keepalive_s=3600, poll_s=3600)
    app, scope = _events_request(service, routes)
    disconnect = anyio.Event()
    chunks: list[bytes] = []
    saved: list[bool] = []

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        chunks.append(message.get("body", b""))
        events = sum(c.count(b"event: index") for c in chunks)
        if events == 1 and not saved:  # the stream is open: now save a doc
            saved.append(True)
            target = root / "docs" / "billing.md"
            temp = target.with_name(".billing.md.tmp")
            temp.write_text("# Billing\n\nThe okapi ledger is the word of this doc, long enough.\n")
            os.replace(temp, target)
        if events >= 2:
            disconnect.set()

    try:
        with anyio.fail_after(20):
            await app(scope, receive, send)
    finally:
        service.watcher.stop()
    generations = [json.loads(c.split(b"data: ")[1]) for c in chunks if b"event: index" in c]
    assert len(generations) == 2 and generations[1]["generation"] > generations[0]["generation"]
    assert routes.streams == 0
    assert service.watcher._listeners == []  # the closed stream stopped listening


def test_search_at_a_revision_goes_through_the_same_gate(server: HttpServer) -> None:
    """#29: `ref` is a field of the `search` tool, so of `GET /search` too."""
    at_head = _get(server, "/search", q="payment", ref="HEAD")
    assert at_head.status_code == 200  # the committed docs (other tests edit the work tree)
    paths = [r["path"] for r in at_head.json()["results"]]
    assert "docs/billing.md" in paths and all(p.startswith("docs/") for p in paths)
    assert _get(server, "/search", q="payment", ref="HEAD", path="private").status_code == 403
    bad = _get(server, "/search", q="payment", ref="nope-nope")
    assert bad.status_code == 400 and "nope-nope" in bad.json()["error"]
