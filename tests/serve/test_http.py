"""`kenso-git serve --transport http`: token, Origin and Host checks, /health, MCP calls."""

from __future__ import annotations

import json
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server
from tests.serve.http_helpers import server_env
from tests.serve.rpc import INIT

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with isolated_git_home(tmp_path_factory):
        root = make_repo(tmp_path_factory.mktemp("http") / "repo", extra="allow-reindex = true\n")
        ingest(root)
        with running_http_server(root, env={"KENSO_TRANSPORT": "http"}) as running:
            yield running


def test_token_file_is_created_private(server: HttpServer) -> None:
    path = server.root / ".kenso" / "http.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(server.token) >= 32


def test_health_needs_the_bearer_token(server: HttpServer) -> None:
    assert httpx.get(f"{server.base}/health").status_code == 401
    wrong = {"Authorization": "Bearer not-the-token-at-all"}
    assert httpx.get(f"{server.base}/health", headers=wrong).status_code == 401
    ok = httpx.get(f"{server.base}/health", headers=server.auth())
    assert ok.status_code == 200
    assert ok.json()["ok"] is True and ok.json()["documents"] >= 3
    assert httpx.post(f"{server.base}/health", headers=server.auth()).status_code == 405


def test_mcp_endpoint_needs_the_bearer_token(server: HttpServer) -> None:
    response = httpx.post(server.url, json=INIT, headers=MCP_HEADERS)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "https://attacker.test:8443", "null", "http://127.0.0.1.evil.example"],
)
def test_non_loopback_origins_are_refused_even_with_the_token(
    server: HttpServer, origin: str
) -> None:
    headers = {**server.auth(), "Origin": origin}
    assert httpx.get(f"{server.base}/health", headers=headers).status_code == 403
    response = httpx.post(server.url, json=INIT, headers={**MCP_HEADERS, **headers})
    assert response.status_code == 403


def test_loopback_origins_are_accepted(server: HttpServer) -> None:
    for origin in ("http://localhost:3000", "http://127.0.0.1", "http://[::1]:9000"):
        headers = {**server.auth(), "Origin": origin}
        assert httpx.get(f"{server.base}/health", headers=headers).status_code == 200, origin


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:80",
        "192.168.1.20:8000",
        "",
        "evil.com@127.0.0.1",
        "evil.com@127.0.0.1:8000",
        "127.0.0.1/evil",
        "127.0.0.1#x",
    ],
)
def test_rebinding_hosts_are_refused(server: HttpServer, host: str) -> None:
    headers = {**server.auth(), "Host": host}
    assert httpx.get(f"{server.base}/health", headers=headers).status_code == 403


@pytest.mark.anyio
async def test_sdk_client_searches_over_http_and_reindex_is_not_offered(
    server: HttpServer,
) -> None:
    async with (
        httpx2.AsyncClient(headers=server.auth()) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        tools = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("search_docs", {"query": "canary marker alpha"})
        refused = await client.call_tool("read_snippet", {"path": "../x.md", "query": "a"})
    assert "reindex" not in tools
    assert json.loads(result.content[0].text)[0]["file_path"] == "docs/deploy.md"
    assert refused.is_error


def _serve_refused(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run an HTTP `serve` that is expected to refuse to start (port 1 is never bound)."""
    return subprocess.run(
        [str(KENSO_EXE), "serve", "--transport", "http", *extra, "--port", "1"],
        cwd=root,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_non_loopback_bind_needs_allow_remote(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    proc = _serve_refused(root, "--host", "0.0.0.0")
    assert proc.returncode == 2
    assert "--allow-remote" in proc.stderr
    assert not (root / ".kenso" / "http.token").exists()


def test_a_token_file_readable_by_others_stops_the_server(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    token = root / ".kenso" / "http.token"
    token.parent.mkdir()
    token.write_text("x" * 40, encoding="utf-8")
    token.chmod(0o644)
    proc = _serve_refused(root)
    assert proc.returncode == 2
    assert f"rm {token}" in proc.stderr and "chmod" not in proc.stderr  # others may know it


@pytest.mark.parametrize("how", [("--port", "70000"), ("--port", "-1"), ("KENSO_PORT", "99999")])
def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, how: tuple[str, str]) -> None:
    # it was "internal error: OverflowError: bind(): port must be 0-65535" and a crash file
    root = make_repo(tmp_path / "repo")
    flag, value = how
    env = server_env()
    args = [str(KENSO_EXE), "serve", "--transport", "http"]
    if flag == "KENSO_PORT":
        env["KENSO_PORT"] = value
    else:
        args += [flag, value]
    proc = subprocess.run(
        args, cwd=root, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert "65535" in proc.stderr and "internal error" not in proc.stderr


def test_stopping_the_server_ends_an_open_event_stream_at_once(tmp_path: Path) -> None:
    # the stream never ended by itself: a stop waited the 2 s graceful timeout, then
    # cancelled it and logged a traceback, and the client's stream was cut mid-transfer
    import signal
    import time

    from tests.serve.http_helpers import free_port

    root = make_repo(tmp_path / "repo")
    ingest(root)
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(
            [str(KENSO_EXE), "serve", "--transport", "http", "--port", str(port)],
            cwd=root,
            env=server_env(),
            stdout=out,
            stderr=out,
        )
    try:
        token_path = root / ".kenso" / "http.token"
        deadline = time.monotonic() + 30
        while not token_path.is_file() and time.monotonic() < deadline:
            time.sleep(0.05)
        auth = {"Authorization": f"Bearer {token_path.read_text(encoding='utf-8').strip()}"}
        url = f"http://127.0.0.1:{port}/events"
        while time.monotonic() < deadline:
            try:
                with httpx.stream("GET", url, headers=auth, timeout=20) as stream:
                    lines = stream.iter_lines()
                    assert next(lines).startswith("event: index")
                    started = time.monotonic()
                    proc.send_signal(signal.SIGTERM)
                    rest = list(lines)  # the stream ends, as a whole response
                    break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert proc.wait(timeout=15) is not None
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=15)
    said = log.read_text(encoding="utf-8")
    assert "Traceback" not in said and "graceful shutdown exceeded" not in said, said
    assert took < 1.5, (took, rest)
