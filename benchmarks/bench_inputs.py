"""Pathological inputs and corpus scaling of ingest and lint (issue #14; run by hand).

    python benchmarks/bench_inputs.py [CORPUS_DIR] [--runs 1] [--skip-corpus | --skip-shapes]
        [--only SHAPE]

1. Every shape of tests/shapes.py (and a YAML alias bomb) as one ~1.9 MB file (the cap is
   2 MB): wall and CPU time of `kenso-git ingest --no-lint` and `kenso-git lint`, each a
   fresh process, and the index size. Target: each under 5 s. Set PYTHONPATH to another
   checkout to measure that one (a baseline in the same run).
2. The docs corpus (default ../shared/corpora/docs-desktop/docs) at 1x and 10x: ingest and
   lint wall and CPU time, lint peak RSS, medians of `--runs` runs. Targets: lint RSS
   10x/1x <= 3, time 10x/1x <= 12.
Not run in CI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from tests.shapes import SHAPES  # noqa: E402
from tests.shapes import size_for  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "docs-desktop" / "docs"
EXE = str(Path(sys.executable).with_name("kenso-git"))
FILE_BYTES = 1_900_000


def alias_bomb(_n: int) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + "\ntags: *i\n---\n# Bomb\n\n" + "text " * 20


def tags_and_sections(n: int) -> str:
    """Finding 3's shape: many tags and many sections in one file."""
    tags = "".join(f"  - tag{i}\n" for i in range(n))
    body = "".join(f"## Section {i}\n\n" + "words " * 40 + "\n\n" for i in range(300))
    return f"---\ntags:\n{tags}---\n# Tagged\n\n{body}"


CPU_S: list[float] = []  # user + system seconds of each measured child, in order


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of one child process; its CPU time (a
    steadier figure on a loaded machine) goes to CPU_S."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    CPU_S.append(usage.ru_utime + usage.ru_stime)
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def shapes(work: Path, only: str | None) -> bool:
    cases = {**SHAPES, "alias_bomb": alias_bomb, "tags_and_sections": tags_and_sections}
    ok = True
    print(
        f"{'input (~1.9 MB)':<22}{'bytes':>10}{'ingest s':>10}{'lint s':>9}{'index MB':>10}"
        f"{'ingest cpu':>12}{'lint cpu':>10}"
    )
    for name, shape in cases.items():
        if only and name != only:
            continue
        root = work / name
        (root / "docs").mkdir(parents=True)
        n = size_for(shape, FILE_BYTES) if name not in ("alias_bomb",) else 1
        if name == "tags_and_sections":
            n = size_for(shape, FILE_BYTES) // 2
        text = shape(n)
        (root / "docs" / "shape.md").write_text(text, encoding="utf-8")
        ingest_s, _rss, _rc = measure([EXE, "ingest", "--no-lint"], root)
        lint_s, _rss, _rc = measure([EXE, "lint", "docs"], root)
        ingest_cpu, lint_cpu = CPU_S[-2:]
        db = root / ".kenso" / "docs.db"
        size = db.stat().st_size / 1e6 if db.exists() else float("nan")
        flag = "" if max(ingest_s, lint_s) < 5 else "  OVER 5 s"
        ok &= not flag
        print(
            f"{name:<22}{len(text):>10,}{ingest_s:>10.2f}{lint_s:>9.2f}{size:>10.1f}"
            f"{ingest_cpu:>12.2f}{lint_cpu:>10.2f}{flag}"
        )
    return ok


def corpus_scaling(corpus: Path, work: Path, runs: int) -> bool:
    one, ten = work / "x1", work / "x10"
    shutil.copytree(corpus, one / "docs")
    for i in range(10):
        shutil.copytree(corpus, ten / "docs" / f"copy{i}")
    rows: dict[str, list[float]] = {}
    for _ in range(runs):
        for label, root in (("1x", one), ("10x", ten)):
            shutil.rmtree(root / ".kenso", ignore_errors=True)
            ingest_s, ingest_rss, _ = measure([EXE, "ingest"], root)
            lint_s, lint_rss, _ = measure([EXE, "lint", "docs"], root)
            ingest_cpu, lint_cpu = CPU_S[-2:]
            for key, value in (
                ("ingest s", ingest_s),
                ("ingest cpu s", ingest_cpu),
                ("ingest RSS MB", ingest_rss),
                ("lint s", lint_s),
                ("lint cpu s", lint_cpu),
                ("lint RSS MB", lint_rss),
            ):
                rows.setdefault(f"{label} {key}", []).append(value)
    med = {key: statistics.median(values) for key, values in rows.items()}
    for key, value in med.items():
        print(f"{key:<20}{value:>10.2f}")
    ratios = {
        "lint RSS 10x/1x": (med["10x lint RSS MB"] / med["1x lint RSS MB"], 3.0),
        "ingest time 10x/1x": (med["10x ingest s"] / med["1x ingest s"], 12.0),
        "lint time 10x/1x": (med["10x lint s"] / med["1x lint s"], 12.0),
        "ingest cpu 10x/1x": (med["10x ingest cpu s"] / med["1x ingest cpu s"], 12.0),
        "lint cpu 10x/1x": (med["10x lint cpu s"] / med["1x lint cpu s"], 12.0),
    }
    ok = True
    for key, (value, bound) in ratios.items():
        ok &= value <= bound
        print(
            f"{key:<20}{value:>10.2f}   target <= {bound:g}{'' if value <= bound else '  MISSED'}"
        )
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--skip-shapes", action="store_true", help="only the corpus scaling")
    ap.add_argument("--only", help="one input shape")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-inputs-") as tmp:
        work = Path(tmp)
        ok = args.skip_shapes or shapes(work / "shapes", args.only)
        if not args.skip_corpus and not args.only:
            if args.corpus.is_dir():
                ok &= corpus_scaling(args.corpus, work / "corpus", args.runs)
            else:
                print(f"corpus {args.corpus} not found: corpus scaling skipped")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
