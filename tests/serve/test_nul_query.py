"""#27 finding 8: a NUL byte in a query word is refused by name at every door of the query
language (the `search` tool, `GET /search`), never a generic tool error or an HTTP 500."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from kenso_git.cli.main import main
from kenso_git.errors import ExitCode
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.test_routes import _events_request

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]
QUERIES = ["pay\x00ment", '"payment \x00service"', "payment -re\x00try"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    ingest(repo)
    return repo


@pytest.mark.parametrize("query", QUERIES)
async def test_the_search_tool_names_the_nul_byte(root: Path, query: str, anyio_backend: str):
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool("search", {"query": query})
        docs = await client.call_tool("search_docs", {"query": query})
    body = json.loads(result.content[0].text)
    assert result.is_error and "NUL byte" in body["error"], body
    assert "NUL byte" in docs.content[0].text  # kenso's payload, as before


async def _get(service: Service, path: str, query: bytes) -> tuple[int, dict[str, Any]]:
    app, scope = _events_request(service, Routes(service))
    scope = {**scope, "path": path, "query_string": query}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with anyio.fail_after(20):
        await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)


@pytest.mark.parametrize("query", [b"q=pay%00ment", b"q=%22a%00b%22", b"q=x&ext=m%00d"])
async def test_get_search_answers_400_naming_the_nul_byte(
    root: Path, query: bytes, anyio_backend: str
) -> None:
    status, body = await _get(Service(root), "/search", query)
    assert status == 400 and "NUL byte" in body["error"], body
    assert "remove the NUL byte" in body["hint"]


@pytest.mark.parametrize("flags", [[], ["--path", "docs"], ["--json"]])
def test_the_cli_refuses_it_by_name_with_exit_2(
    root: Path,
    flags: list[str],
    anyio_backend: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(root)
    with pytest.raises(SystemExit) as exited:
        main(["search", "pay\x00ment", *flags])
    assert exited.value.code == ExitCode.USAGE
    assert "NUL byte" in capsys.readouterr().err
