"""Sessions a client never ends: past `MAX_OPEN_SESSIONS` the least recently used one is
ended (its client is told 404 and starts anew), so the server neither keeps every one nor
refuses new clients with 503 (#27 finding 4)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from kenso_git.serve.http.sessions import MAX_OPEN_SESSIONS
from kenso_git.serve.http.transport import MAX_SESSIONS
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("sessions") / "repo")
        ingest(root)
        with running_http_server(root, env={"KENSO_TRANSPORT": "http"}) as running:
            yield running


def _open(client: httpx.Client, server: HttpServer) -> str:
    response = client.post(server.url, json=INIT, headers={**MCP_HEADERS, **server.auth()})
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def _ping(client: httpx.Client, server: HttpServer, session: str) -> int:
    headers = {**MCP_HEADERS, **server.auth(), "mcp-session-id": session}
    return client.post(server.url, json=PING, headers=headers).status_code


def test_the_least_recently_used_session_is_ended_past_the_cap(server: HttpServer) -> None:
    with httpx.Client(timeout=30) as client:
        kept = _open(client, server)
        oldest = _open(client, server)
        others = [_open(client, server) for _ in range(MAX_OPEN_SESSIONS - 2)]
        assert _ping(client, server, kept) == 200  # used again: now the most recent
        newer = [_open(client, server) for _ in range(3)]  # past the cap by three
        assert _ping(client, server, oldest) == 404  # ended: its client starts a new one
        assert _ping(client, server, others[0]) == 404
        assert _ping(client, server, kept) == 200
        assert _ping(client, server, others[-1]) == 200
        assert all(_ping(client, server, s) == 200 for s in newer)


def test_a_new_client_is_never_refused_for_sessions_nobody_ended(server: HttpServer) -> None:
    with httpx.Client(timeout=30) as client:
        for _ in range(MAX_SESSIONS + 8):  # past the SDK's own limit, which answers 503
            _open(client, server)  # never ended: a client that forgets DELETE
        latest = _open(client, server)
        assert _ping(client, server, latest) == 200


def test_a_client_that_ends_its_session_frees_its_place(server: HttpServer) -> None:
    with httpx.Client(timeout=30) as client:
        session = _open(client, server)
        headers = {**server.auth(), "mcp-session-id": session}
        assert client.delete(server.url, headers=headers).status_code == 200
        assert _ping(client, server, session) == 404
