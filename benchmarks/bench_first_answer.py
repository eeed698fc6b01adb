"""Spawn -> first `search_docs` answer over stdio (#32), against the floor (run by hand).

    .venv/bin/python benchmarks/bench_first_answer.py [--runs 5] [--kenso-venv /work/kenso-ref]

An agent starts the MCP server at the start of every session: what it waits for is the time
from spawning `kenso-git serve` to the answer of its first tool call. The client here is a
bare JSON-RPC writer (initialize, initialized, tools/call search_docs) so that only the
server's time is measured. The floor, measured beside it: a fresh Python process that opens
the same index with `sqlite3` and runs one FTS5 query. kenso 2.0.0's `kenso serve` is timed
the same way when its venv is given. Medians of `--runs`; the target is <= 4x the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import tool_call

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "docs-desktop" / "docs"
EXE = Path(sys.executable).parent / "kenso-git"
QUERY = "keyboard shortcuts"
FLOOR = (
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
    'c.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 5", '
    "(sys.argv[2],)).fetchall()"
)


def _messages(query: str) -> bytes:
    call = tool_call(2, "search_docs", {"query": query, "limit": 5})
    return b"".join(json.dumps(m).encode() + b"\n" for m in (INIT, INITIALIZED, call))


def first_answer(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds from spawn to the line answering request 2 (the search)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_messages(QUERY))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                elapsed = time.perf_counter() - started
                if "error" in message or message["result"].get("isError"):
                    raise AssertionError(f"the search failed: {message}")
                return elapsed
        raise AssertionError("the server closed stdout before answering")
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()


def floor(db: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", FLOOR, str(db), "keyboard shortcuts"], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kenso-venv", type=Path, default=None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(args.corpus, repo / "docs")
        # bytecode is written and then used, as in any installed copy
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("KENSO_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-qm", "docs"], cwd=repo, check=True, env=env)
        subprocess.run(
            [str(EXE), "ingest", "--no-lint"], cwd=repo, check=True, env=env, capture_output=True
        )
        db = repo / ".kenso" / "docs.db"
        rows: dict[str, list[float]] = {
            "floor": [],
            "kenso-git serve": [],
            "kenso-git serve (SDK)": [],
        }
        kenso_repo = None
        if args.kenso_venv is not None:
            kenso_repo = Path(tmp) / "kenso"
            shutil.copytree(args.corpus, kenso_repo / "docs")
            kenso = str(args.kenso_venv / "bin" / "kenso")
            subprocess.run(
                [kenso, "ingest", "docs"], cwd=kenso_repo, check=True, capture_output=True
            )
            rows["kenso 2.0.0 serve"] = []
        first_answer([str(EXE), "serve"], repo, env)  # a warm-up run writes the bytecode
        first_answer([str(EXE), "serve"], repo, {**env, "KENSO_MCP_SDK": "1"})
        for _ in range(args.runs):
            rows["floor"].append(floor(db))
            rows["kenso-git serve"].append(first_answer([str(EXE), "serve"], repo, env))
            sdk = {**env, "KENSO_MCP_SDK": "1"}
            rows["kenso-git serve (SDK)"].append(first_answer([str(EXE), "serve"], repo, sdk))
            if kenso_repo is not None:
                kenso = str(args.kenso_venv / "bin" / "kenso")
                rows["kenso 2.0.0 serve"].append(first_answer([kenso, "serve"], kenso_repo, env))
        base = statistics.median(rows["floor"])
        print(f"spawn -> first search_docs answer, median of {args.runs} (docs corpus)")
        print(f"{'':26} {'median s':>9} {'x floor':>8}")
        for name, values in rows.items():
            med = statistics.median(values)
            print(f"{name:26} {med:9.3f} {med / base:8.1f}")
        print("target: kenso-git serve <= 4x the floor")


if __name__ == "__main__":
    main()
