"""Speed of this checkout against an older commit, interleaved in one run (run by hand).

    python benchmarks/bench_rank_speed.py [CORPUS_DIR] [--baseline 627cdd9] [--rounds 5]
        [--queries FILE.json]

The baseline's `kenso_git` is exported with `git archive` into a temporary folder and put
first on PYTHONPATH of the same interpreter, so both sides share Python, SQLite and the
installed libraries. Each round measures, for the baseline and then for this checkout:
cold ingest (in-process time of a fresh process), in-process search (the queries of
bench_core.py, limit 5, after a warm-up) and one whole-process `kenso-git search`. Prints
medians, the ratio this checkout / baseline, and this checkout against itself with
KENSO_GIT_RANK=off (what the ranking signals cost): on a loaded machine only the ratios
mean something. Issue #18's targets: search p50 <= 5 ms, p95 <= 20 ms, CLI search <= 0.15 s,
cold ingest <= 1.3x the baseline's.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_core import DEFAULT_CORPUS  # noqa: E402 - the benchmark folder is not a package
from bench_core import OURS_INGEST  # noqa: E402
from bench_core import OURS_SEARCH  # noqa: E402
from bench_core import QUERIES  # noqa: E402


def _run(args: list[str], env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    if proc.returncode != 0:
        # name the step and show its error: a bare CalledProcessError hid why a side failed
        sys.exit(f"{' '.join(args[:4])}... exited {proc.returncode}:\n{proc.stderr.strip()}")
    return proc.stdout


def _imported_from(py: str, env: dict[str, str], cwd: Path) -> Path:
    """The folder each side's `kenso_git` comes from (the baseline's must be the export)."""
    code = "import kenso_git, pathlib; print(pathlib.Path(kenso_git.__file__).parent.parent)"
    return Path(_run([py, "-c", code], env, cwd).strip())


def _env(src: Path | None, rank: str | None = None, sync: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("KENSO_GIT_RANK", None)
    # else every process recompiles its modules (~0.2 s), which no installed copy does
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if rank is not None:
        env["KENSO_GIT_RANK"] = rank
    if not sync:
        env["KENSO_QUERY_SYNC"] = "0"  # the docs do not change: time the search alone
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def _quantile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--baseline", default="627cdd9")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5, help="passes over the queries per round")
    ap.add_argument("--no-query-sync", action="store_true", help="KENSO_QUERY_SYNC=0 on all sides")
    ap.add_argument(
        "--queries",
        type=Path,
        help="a JSON list of queries to time instead of bench_core's (e.g. questions a "
        "sentence long, which run the cascade's looser stages)",
    )
    args = ap.parse_args()
    queries = json.loads(args.queries.read_text(encoding="utf-8")) if args.queries else QUERIES
    work = Path(tempfile.mkdtemp(prefix="kenso-rank-speed-"))
    try:
        base_src = work / "base"
        base_src.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(HERE.parent), "archive", args.baseline, "kenso_git"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base_src)], input=archive, check=True)
        repo = work / "repo"
        shutil.copytree(args.corpus.resolve(), repo / "docs")
        for git_args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "c"]):
            subprocess.run(["git", "-C", str(repo), *git_args], check=True, capture_output=True)
        sync = not args.no_query_sync
        # "this, rank off": this checkout with KENSO_GIT_RANK=off, the cost of the signals
        sides = {
            "baseline": _env(base_src, sync=sync),
            "this": _env(None, sync=sync),
            "rank off": _env(None, "off", sync),
        }
        results: dict[str, dict[str, list[float]]] = {
            side: {"ingest": [], "p50": [], "p95": [], "cli": []} for side in sides
        }
        py = sys.executable
        # `python -c` puts the working folder first on sys.path, before PYTHONPATH: run
        # from the checkout, the "baseline" imported this checkout's kenso_git, migrated
        # its index to schema 2, and the baseline's CLI then found no `chunks` table
        neutral = work
        origin = _imported_from(py, sides["baseline"], neutral)
        if origin != base_src:
            sys.exit(f"the baseline side imports kenso_git from {origin}, not {base_src}")
        print(
            f"baseline {args.baseline} from {origin}; this from "
            f"{_imported_from(py, sides['this'], neutral)}",
            flush=True,
        )
        for number in range(args.rounds):
            for side, env in sides.items():
                db = work / f"{side}.db"
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)
                out = results[side]
                out["ingest"].append(
                    json.loads(_run([py, "-c", OURS_INGEST, str(db), str(repo)], env, neutral))["s"]
                )
                search = [py, "-c", OURS_SEARCH, str(db), json.dumps(queries), str(args.reps)]
                times = json.loads(_run([*search, str(repo)], env, neutral))
                out["p50"].append(statistics.median(times) * 1000)
                out["p95"].append(_quantile(times, 0.95) * 1000)
                query = queries[number % len(queries)]
                cli = [str(Path(py).parent / "kenso-git"), "search", query, "--db", str(db)]
                start = time.perf_counter()
                _run(cli, env, cwd=repo)
                out["cli"].append(time.perf_counter() - start)
            print(f"round {number + 1}/{args.rounds} done", flush=True)
        print(f"\ncorpus: {args.corpus} ; baseline {args.baseline}; medians of {args.rounds}")
        print(
            f"{'measure':20} {'baseline':>10} {'this':>10} {'ratio':>7}"
            f" {'rank off':>10} {'ratio':>7}"
        )
        for key, label in (
            ("ingest", "cold ingest (s)"),
            ("p50", "search p50 (ms)"),
            ("p95", "search p95 (ms)"),
            ("cli", "CLI search (s)"),
        ):
            base, this, off = (statistics.median(results[side][key]) for side in sides)
            print(
                f"{label:20} {base:10.3f} {this:10.3f} {this / base:7.2f}"
                f" {off:10.3f} {this / off:7.2f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
