"""Every target of the always-fresh work (#16) in one run (run by hand, not in CI).

    python benchmarks/bench_always_fresh.py [CORPUS_DIR] [--keep DIR] [--runs 9]

Runs, one after the other on the same machine and code:
1. bench_watch.py: an edit visible to `search_docs` on a running server (p95 <= 300 ms),
   the watcher's idle CPU (< 1%) and the RSS it adds at 30x (<= 20 MB);
2. bench_fresh.py at 1x: CLI `search` right after one doc changed (<= 0.2 s);
3. bench_fresh.py --scale 30: no-change `sync` (<= 0.2 s), a hooked checkout of 10 docs
   (adds <= 150 ms), the index size (<= 2x the corpus);
4. bench_git.py: the 20-commit rebase with kenso-git's hooks against as many `exit 0` hooks
   (<= 1.1x).
Prints each one's report as it finishes, then their target lines together. `--keep DIR`
keeps (and reuses) the 30x repository of step 3.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "docs-desktop" / "docs"
# the lines of each report that state a target and its verdict
TARGET_MARKS = ("target", " ok", "MISSED", " yes", " NO", "ratio", "visible")


def _run(title: str, argv: list[str]) -> list[str]:
    print(f"\n=== {title}: {' '.join(argv)}", flush=True)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *argv], cwd=HERE.parent, capture_output=True, text=True, check=False
    )
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stdout.write(proc.stderr)
    print(f"=== {title}: {time.perf_counter() - started:.0f} s, exit {proc.returncode}", flush=True)
    return [f"[{title}] {line.strip()}" for line in proc.stdout.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, help="build the 30x repository here, reuse it")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    corpus = str(args.corpus)
    keep = ["--keep", str(args.keep)] if args.keep else []
    lines: list[str] = []
    lines += _run("watch", ["benchmarks/bench_watch.py", corpus])
    lines += _run("fresh 1x", ["benchmarks/bench_fresh.py", corpus, "--runs", "15"])
    scaled = ["benchmarks/bench_fresh.py", corpus, "--scale", "30", "--runs", str(args.runs)]
    lines += _run("fresh 30x", [*scaled, *keep])
    lines += _run("git", ["benchmarks/bench_git.py", corpus])
    print("\n=== the targets, from the reports above")
    for line in lines:
        if any(mark in line for mark in TARGET_MARKS):
            print(line)


if __name__ == "__main__":
    main()
