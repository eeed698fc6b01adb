"""MCP server benchmark (run by hand): `.venv/bin/python benchmarks/bench_mcp.py`.

Targets: search_docs round trip over stdio p50 <= 10 ms and p95 <= 30 ms on the 1,620-file
docs corpus; `kenso-git serve` start to first answered call <= 1.5 s; 20 concurrent HTTP
clients x 50 queries with zero errors (throughput reported).
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.http_helpers import running_http_server

EXE = Path(sys.executable).parent / "kenso-git"
CORPUS = Path("/work/shared/corpora/docs-desktop/docs")
QUERIES = [
    "install",
    "configuration file",
    "keyboard shortcuts",
    "sync settings",
    "error message",
    "update the app",
    "proxy network",
    "export data",
    "login password",
    "permissions",
    "dark mode theme",
    "extensions",
    "troubleshooting crash",
    "backup restore",
    "command line",
]


def prepare(work: Path) -> Path:
    repo = work / "repo"
    shutil.copytree(CORPUS, repo / "docs")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([str(EXE), "ingest", "--no-lint"], cwd=repo, check=True, capture_output=True)
    return repo


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def stdio_round_trips(repo: Path, n: int = 300) -> tuple[list[float], list[float]]:
    starts: list[float] = []
    for _ in range(5):
        t0 = time.perf_counter()
        async with Client(StdioServerParameters(command=str(EXE), args=["serve"], cwd=repo)) as c:
            await c.call_tool("search_docs", {"query": "install"})
            starts.append(time.perf_counter() - t0)
    times: list[float] = []
    async with Client(StdioServerParameters(command=str(EXE), args=["serve"], cwd=repo)) as c:
        for q in QUERIES:
            await c.call_tool("search_docs", {"query": q})
        rng = random.Random(7)
        for _ in range(n):
            q = rng.choice(QUERIES)
            t = time.perf_counter()
            result = await c.call_tool("search_docs", {"query": q})
            times.append(time.perf_counter() - t)
            assert not result.is_error, result
    return starts, times


async def http_load(url: str, headers: dict[str, str], clients: int, per: int) -> tuple[int, int]:
    errors = 0
    done = 0

    async def one(seed: int) -> None:
        nonlocal errors, done
        rng = random.Random(seed)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as c,
        ):
            for _ in range(per):
                try:
                    r = await c.call_tool("search_docs", {"query": rng.choice(QUERIES)})
                    errors += int(r.is_error)
                    json.loads(r.content[0].text)
                except Exception:
                    errors += 1
                done += 1

    async with anyio.create_task_group() as tg:
        for i in range(clients):
            tg.start_soon(one, i)
    return done, errors


def main() -> None:
    if not CORPUS.is_dir():
        sys.exit(f"corpus not found: {CORPUS}")
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        repo = prepare(Path(tmp))
        starts, times = anyio.run(stdio_round_trips, repo)
        with running_http_server(repo) as server:
            t0 = time.perf_counter()
            done, errors = anyio.run(http_load, server.url, server.auth(), 20, 50)
            elapsed = time.perf_counter() - t0
    rows = [
        (
            "serve start -> first answer (median of 5)",
            f"{statistics.median(starts):.2f} s",
            "<= 1.5 s",
        ),
        ("serve start -> first answer (best of 5)", f"{min(starts):.2f} s", ""),
        ("search_docs stdio p50", f"{pct(times, 50) * 1000:.1f} ms", "<= 10 ms"),
        ("search_docs stdio p95", f"{pct(times, 95) * 1000:.1f} ms", "<= 30 ms"),
        ("HTTP 20 clients x 50 queries", f"{done / elapsed:.0f} calls/s ({elapsed:.1f} s)", ""),
        ("HTTP errors", str(errors), "0"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'result':>26}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>26}  {target}")


if __name__ == "__main__":
    main()
