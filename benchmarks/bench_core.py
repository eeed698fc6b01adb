"""Core benchmark: kenso-git vs kenso 2.0.0, side by side, in one run (run by hand).

    python benchmarks/bench_core.py [CORPUS_DIR] [--runs 5] [--kenso-venv DIR] [--skip-10x]
                                    [--big-runs 3]
                                    [--kenso-cli]

CORPUS_DIR defaults to ../shared/corpora/docs-desktop/docs. kenso 2.0.0 is installed
into a temporary venv (`pip install kenso==2.0.0 pyyaml 'mcp<2'`) unless --kenso-venv
names one. Measures cold ingest, no-change re-ingest (git repo and plain folder),
re-ingest after 10 files change, in-process search p50/p95, whole-process `search`,
database size, peak RSS, the 10x corpus, `lint`, and the floors (read + blob-hash every
file; that plus inserting the raw text into one FTS5 table in one transaction). Prints
medians and ratios against kenso and against the floors. Not run in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "docs-desktop" / "docs"
QUERIES = [
    "deployment",
    "data binding",
    "dependency property",
    "async await",
    "windows forms controls",
    "xaml resources",
    "high dpi",
    "accessibility",
    "drag and drop",
    "clipboard",
    "printing",
    "localization",
    "validation rules",
    "command binding",
    "styles and templates",
    "animation timeline",
    "3D graphics",
    "datagrid",
    "threading dispatcher",
    "application settings",
    "ClickOnce",
    "keyboard input",
    "mouse events",
    "OnPaint",
    "BindingSource",
    "migrate to .NET",
    "designer errors",
    "user control",
    "tooltip",
    "menu strip",
]
KENSO_INGEST = """
import asyncio, json, sys, time
from kenso.config import KensoConfig
from kenso.ingest import ingest_path
cfg = KensoConfig(database_url=sys.argv[1])
t = time.perf_counter()
asyncio.run(ingest_path(cfg, sys.argv[2]))
print(json.dumps({"s": time.perf_counter() - t}))
"""
KENSO_SEARCH = """
import asyncio, json, sys, time
from kenso.backend import Backend
from kenso.config import KensoConfig
queries = json.loads(sys.argv[2]); reps = int(sys.argv[3])
async def main():
    b = Backend(KensoConfig(database_url=sys.argv[1])); await b.startup()
    out = []
    for _ in range(reps):
        for q in queries:
            t = time.perf_counter(); await b.search(q, limit=5); out.append(time.perf_counter() - t)
    await b.shutdown(); print(json.dumps(out))
asyncio.run(main())
"""
OURS_INGEST = """
import json, sys, time
from pathlib import Path
from kenso_git.kb import KnowledgeBase
kb = KnowledgeBase.open(Path(sys.argv[2]), db=sys.argv[1])
t = time.perf_counter(); kb.ingest(); print(json.dumps({"s": time.perf_counter() - t}))
"""
OURS_SEARCH = """
import json, sys, time
from pathlib import Path
from kenso_git.kb import KnowledgeBase
kb = KnowledgeBase.open(Path(sys.argv[4]), db=sys.argv[1])
queries = json.loads(sys.argv[2]); reps = int(sys.argv[3]); out = []
kb.search("warmup")
for _ in range(reps):
    for q in queries:
        t = time.perf_counter(); kb.search(q, limit=5); out.append(time.perf_counter() - t)
print(json.dumps(out))
"""


def median(values: list[float]) -> float:
    return statistics.median(values)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return proc.stdout


def timed(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - t


def peak_rss_mb(cmd: list[str], cwd: Path | None = None) -> float:
    """Peak RSS of one child process, via /usr/bin/time -f %M (KiB)."""
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, capture_output=True, text=True, check=False
    )
    last = proc.stderr.strip().splitlines()[-1]
    return int(last) / 1024


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x.invalid",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x.invalid",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def ensure_kenso(venv: Path | None, work: Path) -> Path:
    if venv is not None:
        return venv / "bin" / "python"
    target = work / "kenso-venv"
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    subprocess.run(
        [str(target / "bin" / "pip"), "install", "-q", "kenso==2.0.0", "pyyaml", "mcp<2"],
        check=True,
    )
    return target / "bin" / "python"


def floors(corpus: Path, work: Path, runs: int) -> tuple[float, float]:
    files = sorted(corpus.rglob("*.md"))
    hash_times, fts_times = [], []
    for _ in range(runs):
        t = time.perf_counter()
        texts = []
        for f in files:
            data = f.read_bytes()
            hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()
            texts.append(data.decode("utf-8", "replace"))
        hash_times.append(time.perf_counter() - t)
        db = work / "floor.db"
        db.unlink(missing_ok=True)
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE VIRTUAL TABLE f USING fts5(body, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO f(body) VALUES (?)", [(x,) for x in texts])
        conn.execute("COMMIT")
        conn.close()
        fts_times.append(time.perf_counter() - t)
    return median(hash_times), median(fts_times)


def edit_files(root: Path, n: int, stamp: str) -> None:
    for f in sorted(root.rglob("*.md"))[:n]:
        with f.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\nBenchmark edit {stamp} adds a sentence.\n")


def main() -> None:  # noqa: C901 - one linear script of measurements
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kenso-venv", type=Path, default=None)
    ap.add_argument("--kenso-runs", type=int, default=3)
    ap.add_argument("--skip-10x", action="store_true")
    ap.add_argument(
        "--big-runs", type=int, default=3, help="runs of kenso-git on the 10x corpus (median)"
    )
    ap.add_argument(
        "--kenso-cli", action="store_true", help="also time kenso's CLI ingest and lint (minutes)"
    )
    args = ap.parse_args()
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        raise SystemExit(f"corpus folder not found: {corpus}")
    ours_py = sys.executable
    ours_cli = str(Path(sys.executable).parent / "kenso-git")
    work = Path(tempfile.mkdtemp(prefix="kenso-bench-"))
    kenso_py = ensure_kenso(args.kenso_venv, work)
    kenso_cli = str(kenso_py.parent / "kenso")
    repo = work / "repo"
    shutil.copytree(corpus, repo / "docs")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "corpus")
    plain = work / "plain"
    shutil.copytree(corpus, plain / "docs")
    n_files = len(list(corpus.rglob("*.md")))
    rows: list[tuple[str, float | None, float | None, str]] = []

    print(f"corpus: {corpus} ({n_files} files), runs: {args.runs}", flush=True)
    # cold ingest, in-process (fresh process each run; timing measured inside), each run
    # right after one measurement of the floors: the machine's speed drifts over minutes,
    # and interleaving keeps the ratio to the floor from drifting with it
    ours_db, kenso_db = work / "ours.db", work / "kenso.db"
    ours_cold, hash_floors, fts_floors = [], [], []
    for _ in range(args.runs):
        hash_once, fts_once = floors(corpus, work, 1)
        hash_floors.append(hash_once)
        fts_floors.append(fts_once)
        ours_db.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{ours_db}{suffix}").unlink(missing_ok=True)
        ours_cold.append(
            json.loads(run([ours_py, "-c", OURS_INGEST, str(ours_db), str(repo)]))["s"]
        )
    hash_floor, fts_floor = median(hash_floors), median(fts_floors)
    kenso_cold = []
    for _ in range(args.kenso_runs):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{kenso_db}{suffix}").unlink(missing_ok=True)
        kenso_cold.append(
            json.loads(run([str(kenso_py), "-c", KENSO_INGEST, str(kenso_db), str(repo / "docs")]))[
                "s"
            ]
        )
    rows.append(
        (
            "cold ingest, in-process (s)",
            median(ours_cold),
            median(kenso_cold),
            f"<= 3x FTS floor = {3 * fts_floor:.2f} s",
        )
    )

    # CLI cold ingest (ours includes the lint summary): the median of --runs, as one run
    # of a whole process on a shared machine moved 0.82-1.10 s between five tries
    def cli_cold_once() -> float:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{ours_db}{suffix}").unlink(missing_ok=True)
        return timed([ours_cli, "ingest", "--db", str(ours_db)], cwd=repo)

    cli_cold = [cli_cold_once() for _ in range(args.runs)]
    rows.append(
        (
            "cold ingest, CLI incl. lint summary (s)",
            median(cli_cold),
            None,
            f"<= 3x FTS floor = {3 * fts_floor:.2f} s (kenso CLI: 227 s measured)",
        )
    )

    # no-change re-ingest: git repo and plain folder
    nochange = [
        json.loads(run([ours_py, "-c", OURS_INGEST, str(ours_db), str(repo)]))["s"]
        for _ in range(args.runs)
    ]
    kenso_nochange = [
        json.loads(run([str(kenso_py), "-c", KENSO_INGEST, str(kenso_db), str(repo / "docs")]))["s"]
        for _ in range(args.kenso_runs)
    ]
    rows.append(
        (
            "re-ingest, nothing changed, git repo (s)",
            median(nochange),
            median(kenso_nochange),
            "<= 0.3 s",
        )
    )
    plain_db = work / "plain.db"
    run([ours_py, "-c", OURS_INGEST, str(plain_db), str(plain)])
    plain_nochange = [
        json.loads(run([ours_py, "-c", OURS_INGEST, str(plain_db), str(plain)]))["s"]
        for _ in range(args.runs)
    ]
    rows.append(
        ("re-ingest, nothing changed, plain folder (s)", median(plain_nochange), None, "<= 0.5 s")
    )
    cli_nochange = [
        timed([ours_cli, "ingest", "--db", str(ours_db)], cwd=repo) for _ in range(args.runs)
    ]
    rows.append(
        ("re-ingest, nothing changed, CLI whole process (s)", median(cli_nochange), None, "")
    )

    # re-ingest after 10 files change
    ten, kenso_ten = [], []
    for i in range(args.runs):
        edit_files(repo / "docs", 10, f"ours{i}")
        ten.append(json.loads(run([ours_py, "-c", OURS_INGEST, str(ours_db), str(repo)]))["s"])
    for i in range(args.kenso_runs):
        edit_files(repo / "docs", 10, f"kenso{i}")
        kenso_ten.append(
            json.loads(run([str(kenso_py), "-c", KENSO_INGEST, str(kenso_db), str(repo / "docs")]))[
                "s"
            ]
        )
    run([ours_py, "-c", OURS_INGEST, str(ours_db), str(repo)])
    rows.append(("re-ingest after 10 files change (s)", median(ten), median(kenso_ten), "<= 0.5 s"))

    # in-process search
    q = json.dumps(QUERIES)
    ours_lat = json.loads(run([ours_py, "-c", OURS_SEARCH, str(ours_db), q, "5", str(repo)]))
    kenso_lat = json.loads(run([str(kenso_py), "-c", KENSO_SEARCH, str(kenso_db), q, "5"]))
    rows.append(
        (
            "search in-process p50 (ms)",
            pct(ours_lat, 50) * 1000,
            pct(kenso_lat, 50) * 1000,
            "<= 5 ms and <= kenso",
        )
    )
    rows.append(
        (
            "search in-process p95 (ms)",
            pct(ours_lat, 95) * 1000,
            pct(kenso_lat, 95) * 1000,
            "<= 20 ms and <= kenso",
        )
    )

    # whole-process search
    env_k = {**os.environ, "KENSO_DATABASE_URL": str(kenso_db)}
    ours_proc = [
        timed([ours_cli, "search", "--db", str(ours_db), QUERIES[i % len(QUERIES)]], cwd=repo)
        for i in range(args.runs * 2)
    ]
    kenso_proc = [
        timed([kenso_cli, "search", QUERIES[i % len(QUERIES)]], cwd=repo, env=env_k)
        for i in range(args.runs * 2)
    ]
    kenso_proc_json = [
        timed([kenso_cli, "search", "--json", QUERIES[i % len(QUERIES)]], cwd=repo, env=env_k)
        for i in range(args.runs)
    ]
    rows.append(
        ("`search` whole process p50 (s)", median(ours_proc), median(kenso_proc), "<= 0.15 s")
    )
    rows.append(("kenso `search --json` whole process (s)", None, median(kenso_proc_json), ""))

    # size and memory
    def size(p: Path) -> float:
        return (
            sum(Path(f"{p}{s}").stat().st_size for s in ("", "-wal") if Path(f"{p}{s}").exists())
            / 2**20
        )

    rows.append(("database size (MiB)", size(ours_db), size(kenso_db), "<= kenso"))
    rss_db, rss_kdb = work / "rss.db", work / "rss-k.db"
    ours_rss = peak_rss_mb([ours_py, "-c", OURS_INGEST, str(rss_db), str(repo)])
    kenso_rss = peak_rss_mb([str(kenso_py), "-c", KENSO_INGEST, str(rss_kdb), str(repo / "docs")])
    rows.append(("peak RSS of a cold ingest (MiB)", ours_rss, kenso_rss, "<= kenso"))

    # lint
    lint_times = [timed([ours_cli, "lint", "docs", "--json"], cwd=repo) for _ in range(args.runs)]
    rows.append(
        (
            "`lint` whole corpus, whole process (s)",
            median(lint_times),
            None,
            "<= 3 s (kenso: 185 s measured)",
        )
    )
    five = [str(p.relative_to(repo)) for p in sorted((repo / "docs").rglob("*.md"))[:5]]
    gate = [timed([ours_cli, "lint", *five], cwd=repo) for _ in range(args.runs)]
    rows.append(("pre-commit gate, 5 files, whole process (s)", median(gate), None, "<= 1 s"))
    if args.kenso_cli:
        rows.append(
            (
                "kenso CLI ingest cold (s)",
                None,
                timed([kenso_cli, "ingest", str(repo / "docs"), "--db", str(work / "kcli.db")]),
                "",
            )
        )
        rows.append(
            (
                "kenso CLI lint (s)",
                None,
                timed([kenso_cli, "lint", str(repo / "docs"), "--json"]),
                "",
            )
        )

    # 10x corpus
    big_pairs: list[float] = []
    if not args.skip_10x:
        big = work / "big"
        for i in range(10):
            shutil.copytree(corpus, big / f"copy{i}")
        git(big, "init", "-q", "-b", "main")
        git(big, "add", "-A")
        git(big, "commit", "-q", "-m", "big")
        big_db, big_kdb = work / "big.db", work / "big-k.db"
        # A median like the 1x figure it is divided by: one ~8 s sample drifts with the
        # machine as much as the target's margin. kenso's 10x (~100 s) runs once.
        # Each 10x run also follows a 1x run, for a run-by-run ratio that the machine's
        # drift between the 1x and 10x parts of the benchmark does not move.
        ours_bigs, big_pairs = [], []
        for _ in range(args.big_runs):
            for target_db in (ours_db, big_db):
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{target_db}{suffix}").unlink(missing_ok=True)
            small = json.loads(run([ours_py, "-c", OURS_INGEST, str(ours_db), str(repo)]))["s"]
            ours_bigs.append(
                json.loads(run([ours_py, "-c", OURS_INGEST, str(big_db), str(big)]))["s"]
            )
            big_pairs.append(ours_bigs[-1] / small)
        ours_big = median(ours_bigs)
        kenso_big = json.loads(run([str(kenso_py), "-c", KENSO_INGEST, str(big_kdb), str(big)]))[
            "s"
        ]
        rows.append(
            (
                "10x corpus cold ingest (s)",
                ours_big,
                kenso_big,
                f"<= 12x the 1x time = {12 * median(ours_cold):.1f} s",
            )
        )
        rows.append(
            (
                "10x / 1x cold ingest ratio",
                ours_big / median(ours_cold),
                kenso_big / median(kenso_cold),
                "<= 12",
            )
        )
        big_lint = median(
            [timed([ours_cli, "lint", ".", "--json"], cwd=big) for _ in range(args.big_runs)]
        )
        rows.append(
            ("`lint` 10x corpus (s)", big_lint, None, f"<= 12x = {12 * median(lint_times):.1f} s")
        )
        rows.append(("10x / 1x lint ratio", big_lint / median(lint_times), None, "<= 12"))

    print()
    print(
        f"floors: read + blob-hash every file {hash_floor:.3f} s; "
        f"+ FTS5 insert in one txn {fts_floor:.3f} s"
    )
    print()
    header = f"{'measure':<52} {'kenso-git':>10} {'kenso':>10} {'kenso/ours':>10}  target"
    print(header)
    print("-" * len(header))
    for name, ours, theirs, target in rows:
        o = f"{ours:10.3f}" if ours is not None else f"{'-':>10}"
        k = f"{theirs:10.3f}" if theirs is not None else f"{'-':>10}"
        r = f"{theirs / ours:9.1f}x" if ours and theirs else f"{'':>10}"
        print(f"{name:<52} {o} {k} {r}  {target}")
    print()
    paired = sorted(o / f for o, f in zip(ours_cold, fts_floors, strict=True))
    print(
        f"cold ingest / FTS floor: {median(ours_cold) / fts_floor:.2f}x of the medians; "
        f"run by run {median(paired):.2f}x median ({', '.join(f'{r:.2f}' for r in paired)}) "
        "(target <= 3x)"
    )
    if big_pairs:
        big_pairs.sort()
        print(
            f"10x / 1x cold ingest, run by run (each 10x run over a 1x run just before it): "
            f"{median(big_pairs):.2f} median ({', '.join(f'{r:.2f}' for r in big_pairs)}) "
            "(target <= 12)"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
