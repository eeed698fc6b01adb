"""`kenso-git serve` runs the watcher (#16): health reports it, `--no-watch` turns it off.

Real server processes over HTTP, with the query-time sync off (KENSO_QUERY_SYNC=0), so an
edit can only become visible through the watcher.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import running_http_server

OFF = {"KENSO_QUERY_SYNC": "0"}


def _health(server: HttpServer) -> dict[str, object]:
    reply = httpx.get(f"{server.base}/health", headers=server.auth(), timeout=10)
    assert reply.status_code == 200
    body: dict[str, object] = reply.json()
    return body


def _hits(server: HttpServer, word: str) -> list[str]:
    reply = httpx.get(
        f"{server.base}/search", params={"q": word}, headers=server.auth(), timeout=10
    )
    assert reply.status_code == 200, reply.text
    return [r["path"] for r in reply.json()["results"]]


def test_health_reports_the_watcher_and_a_save_reaches_search(repo: Path) -> None:
    with running_http_server(repo, env=OFF) as server:
        health = _health(server)
        assert health["watcher_ok"] is True, health
        assert "watching" in str(health["watcher_reason"])
        with httpx.stream(
            "GET", f"{server.base}/events", headers=server.auth(), timeout=20
        ) as events:
            lines = events.iter_lines()
            assert next(lines) == "event: index"
            temp = repo / "docs" / ".deploy.md.tmp"
            temp.write_text(
                "# Deploy\n\nThe axolotl rollout is the word of this document, long enough.\n",
                encoding="utf-8",
            )
            os.replace(temp, repo / "docs" / "deploy.md")
            # The next index event is the watcher's sync (the read timeout bounds the wait).
            assert "event: index" in [next(lines) for _ in range(4)]
        assert _hits(server, "axolotl") == ["docs/deploy.md"]


def test_no_watch_turns_it_off(repo: Path) -> None:
    with running_http_server(repo, args=("--no-watch",), env=OFF) as server:
        health = _health(server)
        assert health["watcher_ok"] is None
        assert "off" in str(health["watcher_reason"])


def test_the_watch_setting_turns_it_off(repo: Path) -> None:
    with running_http_server(repo, env={**OFF, "KENSO_WATCH": "0"}) as server:
        assert _health(server)["watcher_ok"] is None
