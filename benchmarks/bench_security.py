"""Hostile calls stay bounded (issue #13 targets), run by hand on the docs corpus.

    .venv/bin/python benchmarks/bench_security.py [--corpus docs-desktop]

1. CPU seconds of single hostile calls through the service (target: each < 2 s).
2. Wall seconds of a normal `search_docs` from one HTTP client while 40 hostile calls run
   from others (target: < 1 s), as the median of `--rounds` rounds, and its ratio to the same
   search with no other client. `--src DIR` runs the server of another checkout (a baseline:
   `git worktree add /tmp/h13-base 627cdd9`); `--only http` skips part 1.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(sys.argv[sys.argv.index("--src") + 1]).resolve() if "--src" in sys.argv else ROOT
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(SRC))  # kenso_git of the measured checkout; the helpers of this one

from kenso_git.errors import KensoError  # noqa: E402
from kenso_git.kb import KnowledgeBase  # noqa: E402
from kenso_git.serve.service import Service  # noqa: E402
from tests.serve.http_helpers import running_http_server  # noqa: E402

WORDS = [f"w{i}x" for i in range(64)]
HOSTILE_QUERIES = {
    "query at both caps": " ".join(f"deploymentconfiguration{i:06d}x" for i in range(64))[:2000],
    "query at the word cap": " ".join(WORDS),
    "1 MB query": "x" * 1_000_000,
    "typo query": "zanzibat deplyo konfiguraton",
}
HOSTILE_PATHS = {
    "path of 63 components": "a/" * 63 + "x.md",
    "path of 2,000 components": "a/" * 2000 + "x.md",
    "path of 4,096 chars": "docs/" + "b" * 4080 + ".md",
}


def _cpu(fn: object) -> float:
    start = time.process_time()
    with contextlib.suppress(KensoError):
        fn()  # type: ignore[operator]
    return time.process_time() - start


def single_calls(root: Path) -> None:
    service = Service(root)
    service.search_docs("warm up", None, 5)
    for name, query in HOSTILE_QUERIES.items():
        cpu = _cpu(lambda q=query: service.search_docs(q, None, 20))
        print(f"  search_docs {name:<26} {cpu:.3f} s CPU")
        cpu = _cpu(lambda q=query: service.search_multi([q] * 5, None, 20))
        print(f"  search_multi {name:<25} {cpu:.3f} s CPU")
    for name, path in HOSTILE_PATHS.items():
        print(f"  get_doc {name:<30} {_cpu(lambda p=path: service.get_doc(p, None)):.3f} s CPU")
        cpu = _cpu(lambda p=path: service.get_related(p, 3, None))
        print(f"  get_related {name:<26} {cpu:.3f} s CPU")


def _session(client: httpx.Client, url: str) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    reply = client.post(url, json=init)
    headers = {"mcp-session-id": reply.headers.get("mcp-session-id", "")}
    client.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    return headers


def _call(url: str, auth: dict[str, str], name: str, args: dict[str, object]) -> float:
    headers = {**auth, "Accept": "application/json, text/event-stream"}
    with httpx.Client(headers=headers, timeout=120) as client:
        session = _session(client, url)
        start = time.perf_counter()
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
        client.post(url, json=body, headers=session).raise_for_status()
        return time.perf_counter() - start


def _round(server: object, hostile: list[tuple[str, dict[str, object]]]) -> tuple[float, float]:
    """One normal search while 40 hostile calls run: its seconds and the slowest hostile's."""
    url, auth = server.url, server.auth()  # type: ignore[attr-defined]
    with concurrent.futures.ThreadPoolExecutor(max_workers=41) as pool:
        jobs = [pool.submit(_call, url, auth, *hostile[i % len(hostile)]) for i in range(40)]
        time.sleep(0.2)  # let the hostile calls reach the server first
        normal = _call(url, auth, "search_docs", {"query": "configure deployment"})
        slowest = max(job.result() for job in jobs)
    return normal, slowest


def concurrent_calls(root: Path, rounds: int, extra: dict[str, str]) -> None:
    hostile = [("search_docs", {"query": q}) for q in HOSTILE_QUERIES.values()]
    hostile += [("get_doc", {"path": p}) for p in HOSTILE_PATHS.values()]
    env = {"PYTHONPATH": str(SRC), **extra}  # the server imports the measured checkout
    with running_http_server(root, env=env) as server:
        _call(server.url, server.auth(), "search_docs", {"query": "warm up"})
        alone, during, slowest = [], [], []
        for _ in range(rounds):
            alone.append(
                _call(server.url, server.auth(), "search_docs", {"query": "configure deployment"})
            )
            normal, worst = _round(server, hostile)
            during.append(normal)
            slowest.append(worst)
    a, d, worst = statistics.median(alone), statistics.median(during), statistics.median(slowest)
    print(
        f"  normal search_docs alone: {a:.3f} s; during 40 hostile calls: {d:.3f} s "
        f"(target < 1 s; {d / a:.1f}x alone); slowest hostile call {worst:.3f} s"
        f" (medians of {rounds} rounds: {', '.join(f'{x:.2f}' for x in during)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default="docs-desktop")
    parser.add_argument("--src", help="checkout whose kenso_git is measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("single", "http"))
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(SRC)  # the ingest below runs in-process: same code
    docs = ROOT.parent / "shared" / "corpora" / args.corpus / "docs"
    if not docs.is_dir():
        docs = Path("/work/shared/corpora") / args.corpus / "docs"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(docs, root / "docs")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        KnowledgeBase.open(root).ingest()
        print(f"kenso_git from {SRC}, corpus {args.corpus}")
        if args.only != "http":
            print("single hostile calls")
            single_calls(root)
        if args.only != "single":
            print("HTTP: 40 hostile calls and one normal client")
            concurrent_calls(root, args.rounds, dict(e.split("=", 1) for e in args.env))


if __name__ == "__main__":
    main()
