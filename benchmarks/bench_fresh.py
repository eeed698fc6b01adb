"""Query-time freshness benchmark (#16), run by hand, not in CI.

    python benchmarks/bench_fresh.py [CORPUS_DIR] [--runs 15]

CORPUS_DIR defaults to ../shared/corpora/docs-desktop/docs, copied into a temporary git
repository and ingested. Measures, as medians:

- whole-process `kenso-git search WORD --json` right after one doc was saved (write a temp
  file, rename it over) with WORD in it: target <= 0.2 s, and the doc must be in the hits;
- the same command with `--no-sync` and no change (the floor: process start plus a search);
- in-process, nothing changed: `KnowledgeBase.refresh()` alone (the cost of the check) and a
  search with query-sync on against off.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "docs-desktop" / "docs"
EXE = Path(sys.executable).parent / "kenso-git"
TARGET_CLI_S = 0.2
CPU: list[float] = []  # user + system seconds of each `_cli` process, in call order


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _setup(corpus: Path, tmp: Path) -> Path:
    root = tmp / "repo"
    shutil.copytree(corpus, root / "docs")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "corpus")
    from kenso_git.kb import KnowledgeBase

    KnowledgeBase.open(root).ingest()
    return root


def _save(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(root: Path, *args: str) -> tuple[float, list[dict[str, object]]]:
    """Wall seconds of one `kenso-git search ... --json` and its hits; CPU goes to CPU."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENSO_")}
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(
        [str(EXE), "search", *args, "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    elapsed = time.perf_counter() - started
    CPU.append(_children_cpu() - cpu)
    return elapsed, json.loads(proc.stdout)


def _p50(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    """Run the benchmark and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    docs_count = sum(1 for _ in args.corpus.rglob("*.md"))
    with tempfile.TemporaryDirectory() as tmpdir:
        root = _setup(args.corpus, Path(tmpdir))
        targets = sorted((root / "docs").rglob("*.md"))
        step = max(1, len(targets) // args.runs)
        after_edit, floor, visible = [], [], 0
        for i in range(args.runs):
            target = targets[(i * step) % len(targets)]
            word = f"zqfresh{i}x"
            text = target.read_text(encoding="utf-8", errors="replace")
            _save(target, text + f"\n\nThe {word} marker was added by the benchmark.\n")
            elapsed, hits = _cli(root, word)
            after_edit.append(elapsed)
            rel = target.relative_to(root).as_posix()
            visible += any(h.get("file_path") == rel for h in hits)
            floor.append(_cli(root, "deployment", "--no-sync")[0])

        from kenso_git.kb import KnowledgeBase

        kb = KnowledgeBase.open(root)
        kb.search("deployment")  # warm: connection, synonyms, caches
        check, on, off = [], [], []
        for _ in range(args.runs * 2):
            started = time.perf_counter()
            kb.refresh()
            check.append(time.perf_counter() - started)
            started = time.perf_counter()
            kb.search("data binding")
            on.append(time.perf_counter() - started)
        kb.settings = kb.settings._replace(query_sync=False)
        for _ in range(args.runs * 2):
            started = time.perf_counter()
            kb.search("data binding")
            off.append(time.perf_counter() - started)
    cli = _p50(after_edit)
    cpu_edit, cpu_floor = _p50(CPU[0::2]), _p50(CPU[1::2])
    verdict = "ok" if cli <= TARGET_CLI_S else "MISSED"
    print(f"corpus: {args.corpus} ({docs_count} docs), {args.runs} runs, medians")
    print(
        f"cli search right after one doc changed: {cli * 1000:.0f} ms "
        f"(target <= {TARGET_CLI_S * 1000:.0f} ms: {verdict}); "
        f"change visible in {visible}/{args.runs}; CPU {cpu_edit * 1000:.0f} ms"
    )
    print(
        f"cli search --no-sync, nothing changed (floor): {_p50(floor) * 1000:.0f} ms; "
        f"CPU {cpu_floor * 1000:.0f} ms"
    )
    print(f"in-process freshness check, nothing changed: {_p50(check) * 1000:.1f} ms p50")
    print(
        f"in-process search, nothing changed: query-sync on {_p50(on) * 1000:.1f} ms, "
        f"off {_p50(off) * 1000:.1f} ms (p50)"
    )


if __name__ == "__main__":
    main()
