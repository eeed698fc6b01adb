"""The lanes over real HTTP against the real server (#27, finding 3).

Hostile calls here are real work: negated `re:` filters whose RE2 program costs about 12 us
a byte over a document of 50 KB lines, a minute of CPU each under the generous budgets of
this server, so they hold their lanes for the whole test (the server is stopped at the end).
The assertions read the lanes' state from `/health` and the lane each reply names in
`x-kenso-lane`; none measures time.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import init_repo
from tests.serve.conftest import DOCS
from tests.serve.http_helpers import HttpServer
from tests.serve.http_helpers import isolated_git_home
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import tool_call
from tests.serve.test_cpu_budget import _long_lines

BOUND_S = 60  # every wait below ends by then, whatever the machine's load
COSTLY = [f'-re:"(.*[{r}]){{999}}q$"' for r in ("a-m", "n-z", "a-f", "g-p", "q-z")]
LIGHT_HOSTILE = " ".join(COSTLY)  # 5 words: light by its arguments, minutes of CPU
HEAVY_HOSTILE = " ".join(COSTLY * 3)  # 15 words: heavy by its arguments
UNSIZED = {"KENSO_HTTP_COSTLY_RE2": "100000000"}  # these patterns are known by CPU, not size


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with isolated_git_home(tmp_path_factory):
        files: dict[str, str | bytes] = {k: v for k, v in DOCS.items() if k.startswith("docs/")}
        files["docs/long.md"] = _long_lines(7)
        repo = init_repo(tmp_path_factory.mktemp("lanes") / "repo", files)
        KnowledgeBase.open(repo).ingest()
        yield repo


class _Client:
    """One MCP session over one keep-alive connection."""

    def __init__(self, server: HttpServer) -> None:
        headers = {**server.auth(), "Accept": "application/json, text/event-stream"}
        self.server = server
        self.http = httpx.Client(headers=headers, timeout=BOUND_S * 3)
        try:
            reply = self.http.post(server.url, json=INIT)
        except BaseException:
            self.http.close()
            raise
        self.session = {"mcp-session-id": reply.headers.get("mcp-session-id", "")}
        self.http.post(server.url, json=INITIALIZED, headers=self.session)

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.http.close()  # an unclosed socket fails a later test with a ResourceWarning

    def call(self, name: str, arguments: dict[str, Any]) -> httpx.Response:
        body = tool_call(2, name, arguments)
        return self.http.post(self.server.url, json=body, headers=self.session)

    def get(self, path: str, **params: str) -> httpx.Response:
        return self.http.get(f"{self.server.base}{path}", params=params)


def _text(reply: httpx.Response) -> str:
    return str(reply.json()["result"]["content"][0]["text"])


def _lanes_until(client: _Client, done: Any) -> dict[str, Any]:
    """The lanes /health shows once `done(lanes, lane)` holds, `lane` the one that served
    that /health: it counts itself among the busy (in the shared lane while that is free)."""
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        reply = client.get("/health")
        lanes: dict[str, Any] = reply.json()["lanes"]
        if done(lanes, reply.headers["x-kenso-lane"]):
            return lanes
        time.sleep(0.05)
    raise AssertionError(f"the lanes never got there: {lanes}")


@contextlib.contextmanager
def _hostile(server: HttpServer, calls: list[tuple[str, dict[str, Any]]]) -> Iterator[list[str]]:
    """The calls running from clients of their own until the server stops; the list it
    yields gets a line for each call that ended (its status and the start of its reply),
    for an assertion to name when a call that should still hold its lane did not."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(calls))
    ended: list[str] = []

    def run(name: str, arguments: dict[str, Any]) -> None:
        said = f"{name} of {len(arguments['query'])} chars"
        try:
            with _Client(server) as client:
                reply = client.call(name, arguments)
        except httpx.HTTPError as error:  # the server stopped under it: the usual end
            ended.append(f"{said}: {error!r}")
        else:
            ended.append(f"{said}: {reply.status_code} {reply.text[:300]}")

    try:
        for name, arguments in calls:
            pool.submit(run, name, arguments)
        yield ended
    finally:
        pool.shutdown(wait=False)


def test_the_reserved_lane_admits_a_known_client_while_the_other_lanes_are_full(
    root: Path,
) -> None:
    env = {
        "KENSO_HTTP_LANES": "1",
        "KENSO_HTTP_QUANTUM_MS": "600000",  # nothing is demoted: the lanes stay as filled
        "KENSO_CALL_BUDGET": "600",
        "KENSO_CALL_CPU_BUDGET": "600000",
        **UNSIZED,
    }
    # stopped at once: its hostile calls would hold the interpreter for minutes
    with (
        running_http_server(root, env=env, stop_timeout=1) as server,
        contextlib.ExitStack() as stack,
    ):
        normal = stack.enter_context(_Client(server))
        monitor = stack.enter_context(_Client(server))
        first = normal.call("search_docs", {"query": "payment retries"})
        assert first.headers["x-kenso-lane"] == "shared"  # known from now on
        assert monitor.get("/health").headers["x-kenso-lane"] == "shared"
        hostile = [("search", {"query": LIGHT_HOSTILE}), ("search", {"query": HEAVY_HOSTILE})]
        with _hostile(server, hostile) as ended:
            # the monitor is known: served in the reserved lane once a hostile call holds
            # the shared one (a /health in the shared lane is busy there with itself)
            lanes = _lanes_until(monitor, lambda s, lane: lane == "reserved" and s["heavy_busy"])
            assert lanes["shared_busy"] == 1 and lanes["reserved_busy"] == 1
            assert lanes["shared"] == 1
            reply = normal.call("search_docs", {"query": "payment retries"})
            assert reply.headers["x-kenso-lane"] == "reserved", (lanes, ended)
            assert "docs/billing.md" in _text(reply)
            search = monitor.get("/search", q="payment")  # GET /search: the same lanes
            assert search.headers["x-kenso-lane"] == "reserved"
            assert "docs/billing.md" in [h["path"] for h in search.json()["results"]]
            busy = monitor.get("/health").json()["lanes"]
            assert busy["shared_busy"] == 1 and busy["heavy_busy"] == 1, (busy, ended)  # held
            assert busy["admitted"]["reserved"] >= 2


def test_a_call_measured_as_expensive_moves_to_the_heavy_lane_and_stops_at_its_cpu_budget(
    root: Path,
) -> None:
    env = {"KENSO_HTTP_QUANTUM_MS": "20", "KENSO_CALL_CPU_BUDGET": "500", **UNSIZED}
    with running_http_server(root, env=env) as server, _Client(server) as client:
        reply = client.call("search", {"query": COSTLY[0]})  # light by its arguments
        assert reply.headers["x-kenso-lane"] == "heavy"
        assert reply.json()["result"]["isError"] is True
        assert "CPU budget of 0.5 s" in json.loads(_text(reply))["error"]
        lanes = client.get("/health").json()["lanes"]
        assert lanes["demoted"] == 1 and lanes["heavy_busy"] == 0
        cheap = client.call("search_docs", {"query": "payment retries"})
        assert cheap.headers["x-kenso-lane"] == "shared"
        assert "docs/billing.md" in _text(cheap)


def test_a_costly_pattern_takes_the_heavy_lane_before_it_has_used_its_quantum(
    root: Path,
) -> None:
    """A pattern whose RE2 program is large is expensive whatever the corpus; it used to
    hold a cheap slot for a whole quantum first (0.25 s of CPU, most of a second of a busy
    server's time), while every cheap call behind it waited."""
    env = {"KENSO_HTTP_QUANTUM_MS": "600000", "KENSO_CALL_CPU_BUDGET": "500"}
    with running_http_server(root, env=env) as server, _Client(server) as client:
        cheap = client.call("regex_search", {"pattern": "pay(ment)?s? retr[a-z]+"})
        assert cheap.headers["x-kenso-lane"] == "shared"
        costly = client.call("regex_search", {"pattern": "[a-q][^u-z]{99}x"})
        assert costly.headers["x-kenso-lane"] == "heavy"
        filtered = client.call("search", {"query": 'payment re:"[a-q][^u-z]{99}x"'})
        assert filtered.headers["x-kenso-lane"] == "heavy"
        lanes = client.get("/health").json()["lanes"]
        assert lanes["demoted"] == 2
