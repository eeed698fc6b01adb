"""Bounded HTTP work: slow partial requests are cut off, every call runs in a lane."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import anyio
import httpx
import pytest
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

from kenso_git.serve.http.lanes import CURRENT
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.lanes import Ticket
from kenso_git.serve.http.limits import LIGHT_MAX_WORDS
from kenso_git.serve.http.limits import CallLanes
from kenso_git.serve.http.limits import is_heavy
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import tool_call

TIMEOUT_S = 1.0
BOUND_S = 20  # every wait below ends by then, whatever the machine's load


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = make_repo(tmp_path_factory.mktemp("limits") / "repo")
    ingest(root)
    with running_http_server(root, env={"KENSO_HTTP_TIMEOUT": str(TIMEOUT_S)}) as running:
        yield running


def _connect(server: HttpServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=BOUND_S)
    sock.settimeout(BOUND_S)
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (socket.timeout past the bound)."""
    out = b""
    while chunk := sock.recv(4096):
        out += chunk
    return out


def _head(server: HttpServer, length: int | None = None) -> bytes:
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{server.port}",
        f"Authorization: Bearer {server.token}",
        "Content-Type: application/json",
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_headers_sent_too_slowly_are_cut_off(server: HttpServer) -> None:
    with _connect(server) as sock:
        sock.sendall(_head(server)[:40])  # half a request line and a header, then nothing
        reply = _read_until_closed(sock)
    assert reply.startswith(b"HTTP/1.1 408")


def test_a_body_sent_too_slowly_is_cut_off(server: HttpServer) -> None:
    with _connect(server) as sock:
        sock.sendall(_head(server, length=500) + b'{"jsonrpc": "2.0",')
        reply = _read_until_closed(sock)
    assert reply.startswith(b"HTTP/1.1 408")


def test_a_trickling_client_is_cut_off_before_its_headers_end(server: HttpServer) -> None:
    head = _head(server) * 50  # would take minutes at one byte per tick
    sent = 0
    with _connect(server) as sock:
        try:
            for byte in head:
                sock.sendall(bytes([byte]))
                sent += 1
                time.sleep(0.05)  # the attack itself: a byte now and then
        except OSError:
            pass  # the server closed the connection
        with pytest.raises(OSError):
            for _ in range(100):  # a closed peer refuses writes after the first RST
                sock.sendall(b"x")
                time.sleep(0.05)
    assert sent < len(head)


def test_slow_clients_hold_no_worker(server: HttpServer) -> None:
    slow = [_connect(server) for _ in range(8)]
    try:
        for sock in slow:
            sock.sendall(_head(server)[:30])
        health = httpx.get(f"{server.base}/health", headers=server.auth(), timeout=BOUND_S)
        assert health.status_code == 200
    finally:
        for sock in slow:
            sock.close()


def test_an_idle_connection_is_closed_without_a_reply(server: HttpServer) -> None:
    with _connect(server) as sock:
        assert _read_until_closed(sock) == b""


# --- the lane for expensive calls ------------------------------------------------------


def _call(query: str | None = None, queries: list[str] | None = None) -> bytes:
    args: dict[str, object] = {}
    if query is not None:
        args["query"] = query
    if queries is not None:
        args["queries"] = queries
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": args}}
    return json.dumps(body).encode()


def test_calls_are_weighed_by_their_arguments() -> None:
    assert not is_heavy(_call("configure deployment"))
    assert not is_heavy(_call(" ".join(["w"] * LIGHT_MAX_WORDS)))
    assert is_heavy(_call(" ".join(["w"] * (LIGHT_MAX_WORDS + 1))))
    assert is_heavy(_call(queries=[" ".join(["w"] * 5)] * 3))
    assert is_heavy(_call("x" * 1_000_000))
    assert is_heavy(b"[" + _call("a") + b"]")
    assert not is_heavy(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}')
    assert not is_heavy(b"not json")


class _Recorder:
    """The app behind the lanes: records each request's ticket; blocks until released."""

    def __init__(self) -> None:
        self.tickets: list[Ticket | None] = []
        self.release = anyio.Event()
        self.blocked = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        ticket = CURRENT.get()
        self.tickets.append(ticket)
        if b"hold" in message.get("body", b"") or b"hold" in scope.get("query_string", b""):
            self.blocked += 1
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_every_call_that_does_work_runs_under_a_lane_ticket(anyio_backend: str) -> None:
    app = _Recorder()
    lanes = CallLanes(app, Lanes(shared=2), max_in_flight=3)
    transport = httpx.ASGITransport(app=lanes)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        with anyio.fail_after(BOUND_S):
            init = await client.post("/mcp", content=json.dumps(INIT).encode())
            assert app.tickets == [None] and "x-kenso-lane" not in init.headers
            cheap = await client.post("/mcp", content=_call("configure deployment"))
            assert cheap.headers["x-kenso-lane"] == "shared"
            heavy = await client.post("/mcp", content=_call(" ".join(["w"] * 13)))
            assert heavy.headers["x-kenso-lane"] == "heavy"
            for path in ("/search?q=payment", "/health"):
                assert (await client.get(path)).headers["x-kenso-lane"] == "shared"
            wide = await client.get("/search", params={"q": " ".join(["w"] * 13)})
            assert wide.headers["x-kenso-lane"] == "heavy"
            events = await client.get("/events")
            assert "x-kenso-lane" not in events.headers  # a stream holds no worker
            assert [t is not None for t in app.tickets] == [
                False,
                True,
                True,
                True,
                True,
                True,
                False,
            ]

            async def hold() -> None:
                await client.post("/mcp", content=_call("hold"))

            async with anyio.create_task_group() as group:
                for _ in range(3):
                    group.start_soon(hold)
                while app.blocked < 2 or lanes.in_flight < 3:
                    await anyio.sleep(0)  # two run in the shared slots, one waits
                over = await client.post("/mcp", content=_call("configure deployment"))
                assert over.status_code == 503 and "too many calls" in over.json()["error"]
                app.release.set()
    assert lanes.in_flight == 0 and lanes.lanes.state().waiting == 0


def test_an_oversized_body_is_refused(server: HttpServer) -> None:
    reply = httpx.post(
        server.url,
        headers={**server.auth(), "Content-Type": "application/json"},
        content=b" " * (5 * 1024 * 1024),
        timeout=BOUND_S,
    )
    assert reply.status_code == 413


def test_the_real_server_still_answers_long_queries(server: HttpServer) -> None:
    # A heavy call goes through the lane and gets kenso's answer, not a refusal.
    headers = {**server.auth(), "Accept": "application/json, text/event-stream"}
    with httpx.Client(headers=headers, timeout=BOUND_S) as client:
        reply = client.post(server.url, json=INIT)
        session = {"mcp-session-id": reply.headers.get("mcp-session-id", "")}
        client.post(server.url, json=INITIALIZED, headers=session)
        query = " ".join(["payment"] * 40)
        body = tool_call(2, "search_docs", {"query": query})
        answer = client.post(server.url, json=body, headers=session).json()
    assert "docs/" in json.dumps(answer["result"])
