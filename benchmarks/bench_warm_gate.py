"""Warm search cost and the scope gate's share of it, run by hand on a generated monorepo.

    python benchmarks/bench_warm_gate.py [--docs 50000] [--corpus DIR] [--keep DIR]

Builds (or reuses, with `--keep`) the repository `bench_scale.py` generates, ingests it, and
on one warm `Service` (the MCP server's, per-call gate and all) prints for each query the
median CPU of 5 warm calls of `search_docs`, the agent's ranked `search` and its exhaustive
`search`, and how many paths the gate judged in one warm call (`Scope._admits`). A ranked
call judges what its page needs; an exhaustive one every match (its total counts them).
CPU budgets are lifted so a slow call is measured, not refused.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.bench_scale import DEFAULT_CORPUS
from benchmarks.bench_scale import EXE
from benchmarks.bench_scale import generate

QUERIES = ("data", "window", "property", "data binding", "class")
RUNS = 5


def _prepare(root: Path, corpus: Path, docs: int) -> None:
    if (root / ".kenso" / "docs.db").exists():
        return
    if not any(corpus.rglob("*.md")):
        raise SystemExit(f"no Markdown under {corpus}: pass --corpus")
    root.mkdir(parents=True, exist_ok=True)
    generate(corpus, root, docs)
    subprocess.run([str(EXE), "ingest", "--no-lint"], cwd=root, check=True, capture_output=True)


def measure(root: Path) -> dict[str, dict[str, float]]:
    """query -> tool -> median warm CPU ms, and the paths the gate judged in one call."""
    os.environ["KENSO_CALL_CPU_BUDGET"] = "600000"
    os.environ["KENSO_CALL_BUDGET"] = "600"
    from kenso_git.repo import scope
    from kenso_git.serve.service import Service

    judged = [0]
    admits = scope.Scope._admits

    def counted(self: scope.Scope, *args: object) -> bool:
        judged[0] += 1
        return admits(self, *args)  # type: ignore[arg-type]

    scope.Scope._admits = counted  # type: ignore[method-assign]
    service = Service(root)
    tools: dict[str, Callable[[str], object]] = {
        "search_docs": lambda q: service.search_docs(q, None, 10),
        "search": lambda q: service.search(q, page_size=10),
        "exhaustive": lambda q: service.search(q, page_size=10, mode="exhaustive"),
    }
    out: dict[str, dict[str, float]] = {}
    for query in QUERIES:
        for name, call in tools.items():
            call(query)
            call(query)  # warm: the docs, the verdicts on paths as written, the caches
            cpu = []
            for _ in range(RUNS):
                judged[0] = 0
                start = time.process_time()
                call(query)
                cpu.append(time.process_time() - start)
            row = out.setdefault(query, {})
            row[f"{name}_ms"] = round(statistics.median(cpu) * 1000, 1)
            row[f"{name}_judged"] = judged[0]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    root = args.keep or Path(f"/tmp/kenso-warm-gate-{args.docs}")
    _prepare(root, args.corpus, args.docs)
    print(json.dumps(measure(root), indent=1))


if __name__ == "__main__":
    main()
