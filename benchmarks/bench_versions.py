"""Two (or more) checkouts of kenso-git side by side on the same corpus, in one run (by hand).

    .venv/bin/python benchmarks/bench_versions.py OLD_CHECKOUT NEW_CHECKOUT [--runs 5]

For a change's "speed stays" target (#26, #28): each checkout's `kenso_git` is imported
through PYTHONPATH by the same interpreter, and measured alternately (so load drifts hit
every checkout alike): cold `ingest --no-lint` of a fresh copy of the corpus (whole
process), `search` of one query (whole process, index warm: the median of 5 after one),
and in-process `search_docs` over 60 queries (p50 and p95). Prints medians and each
checkout's ratio to the first.
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

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "docs-desktop" / "docs"
QUERIES = (
    "install the designer", "data binding", "keyboard shortcuts", "high dpi", "accessibility",
    "drag and drop", "printing", "dialog box", "custom control", "animation", "localization",
    "threading", "resources", "styles and templates", "validation", "commands",
) * 4  # fmt: skip
IN_PROCESS = """
import json, statistics, sys, time
from kenso_git.kb import KnowledgeBase
kb = KnowledgeBase.open()
kb.settings = kb.settings._replace(query_sync=False)
kb.search_docs("warm up")
times = []
for q in json.loads(sys.argv[1]):
    t = time.perf_counter(); kb.search_docs(q); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps([statistics.median(times), times[int(len(times) * 0.95) - 1]]))
"""


def _env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENSO_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return {**env, "PYTHONPATH": str(src)}


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    py = sys.executable
    rows: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for src in args.checkouts:
                env = _env(src.resolve())
                repo = Path(tmp) / f"r{run}-{src.name}"
                shutil.copytree(args.corpus, repo / "docs")
                for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "docs"]):
                    subprocess.run(["git", *git], cwd=repo, env=env, check=True)
                row = rows.setdefault(str(src), {"ingest": [], "cli": [], "p50": [], "p95": []})
                row["ingest"].append(
                    _timed([py, "-m", "kenso_git", "ingest", "--no-lint"], repo, env)
                )
                search = [py, "-m", "kenso_git", "search", "data binding"]
                _timed(search, repo, env)  # the first after an ingest meets its WAL settler
                row["cli"].append(statistics.median(_timed(search, repo, env) for _ in range(5)))
                out = subprocess.run(
                    [py, "-c", IN_PROCESS, json.dumps(QUERIES)],
                    cwd=repo,
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                p50, p95 = json.loads(out)
                row["p50"].append(p50)
                row["p95"].append(p95)
                shutil.rmtree(repo)
    first = None
    print(f"medians of {args.runs} runs (alternating), docs corpus")
    print(f"{'checkout':40} {'ingest s':>9} {'cli s':>7} {'p50 ms':>7} {'p95 ms':>7}")
    for src, row in rows.items():
        med = {k: statistics.median(v) for k, v in row.items()}
        first = first or med
        print(
            f"{src:40} {med['ingest']:9.3f} {med['cli']:7.3f} {med['p50'] * 1000:7.2f} "
            f"{med['p95'] * 1000:7.2f}   ratio ingest {med['ingest'] / first['ingest']:.2f}, "
            f"cli {med['cli'] / first['cli']:.2f}, p50 {med['p50'] / first['p50']:.2f}"
        )


if __name__ == "__main__":
    main()
