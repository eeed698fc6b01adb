"""20 HTTP clients x 50 queries while `kenso-git sync` rewrites the index underneath."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.helpers import init_repo
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import ingest
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import running_http_server
from tests.serve.http_helpers import server_env

CLIENTS = 20
QUERIES = 50
MARKER = "zyxmarker"
GROUP_A = frozenset(f"docs/a{i:02d}.md" for i in range(8))
GROUP_B = frozenset(f"docs/b{i:02d}.md" for i in range(8))


def _files(marked: frozenset[str]) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for path in sorted(GROUP_A | GROUP_B):
        word = MARKER if path in marked else "plainword"
        name = Path(path).stem
        files[path] = (
            f"# Topic {name}\n\nThe {name} page explains {word} handling in depth.\n\n"
            f"## Details of {name}\n\nMore sentences so that the page is indexed properly.\n"
        )
    return files


def _flip(root: Path, stop: threading.Event, syncs: list[int]) -> None:
    marked = GROUP_A
    while not stop.is_set():
        marked = GROUP_B if marked == GROUP_A else GROUP_A
        for rel, text in _files(marked).items():
            (root / rel).write_text(str(text), encoding="utf-8")
        proc = subprocess.run(
            [str(KENSO_EXE), "sync"], cwd=root, env=server_env(), capture_output=True, check=False
        )
        syncs.append(proc.returncode)


async def _client(server: HttpServer, answers: list[frozenset[str]], errors: list[str]) -> None:
    async with (
        httpx2.AsyncClient(headers=server.auth(), timeout=60) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        for _ in range(QUERIES):
            try:
                result = await client.call_tool("search_docs", {"query": MARKER, "limit": 20})
            except Exception as err:  # every failure counts, whatever its kind
                errors.append(repr(err))
                continue
            if result.is_error:
                errors.append(result.content[0].text)
                continue
            hits = json.loads(result.content[0].text)
            answers.append(frozenset(h["file_path"] for h in hits))


@pytest.mark.slow
def test_concurrent_clients_see_either_the_old_or_the_new_index(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", _files(GROUP_A))
    ingest(root)
    answers: list[frozenset[str]] = []
    errors: list[str] = []
    syncs: list[int] = []
    stop = threading.Event()
    # What is under test is the sync's old-or-new swap; with query-sync or the watcher on, an
    # answer would follow the half-rewritten tree instead (tests/serve/test_fresh_property.py
    # and test_watcher_property.py cover that).
    with running_http_server(root, args=("--no-watch",), env={"KENSO_QUERY_SYNC": "0"}) as server:
        writer = threading.Thread(target=_flip, args=(root, stop, syncs))
        writer.start()
        try:

            async def main() -> None:
                with anyio.fail_after(240):
                    async with anyio.create_task_group() as tg:
                        for _ in range(CLIENTS):
                            tg.start_soon(_client, server, answers, errors)

            anyio.run(main)
        finally:
            stop.set()
            writer.join(timeout=120)
    assert errors == []
    assert len(answers) == CLIENTS * QUERIES
    assert syncs and set(syncs) == {0}
    assert len(syncs) >= 2, "the index should have been rewritten during the queries"
    odd = [a for a in answers if a not in (GROUP_A, GROUP_B)]
    assert odd == []
    assert {GROUP_A, GROUP_B} <= set(answers)
