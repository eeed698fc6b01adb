"""How chunk text is stored (#16, #26): index size, cold ingest and search p50 of two trees.

    python benchmarks/bench_textcodec.py BASE_SRC [NEW_SRC] [--corpus DIR] [--runs 3]
                                         [--scale N]

Ingests CORPUS (default ../shared/corpora/docs-desktop/docs, one git commit; `--scale 30`:
30 copies of it, the monorepo size of #16 and #26) with the kenso-git of each tree in
turn, alternating, each run in a fresh process and a fresh database: cold ingest seconds,
index bytes (db + -wal + -shm) against the corpus, the dbstat breakdown of the largest
tables, the ingest's CPU seconds (writer and workers), in-process search p50 over
bench_core's queries and `state()` time. Prints medians and new/base ratios; #26's targets
are an index <= 2.5x the corpus at 30x, and ingest and search within 5% of the base tree.
BASE_SRC is a source tree (say `git archive` of an older commit). Not run in CI.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "docs-desktop" / "docs"
CHILD = r"""
import json, resource, sqlite3, sys, time
from pathlib import Path
import kenso_git
from kenso_git.kb import KnowledgeBase
db, root, queries = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
kb = KnowledgeBase.open(root, db=str(db))
def cpu():
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
               resource.getrusage(resource.RUSAGE_CHILDREN)))
c, t = cpu(), time.perf_counter(); kb.ingest(); ingest = time.perf_counter() - t
ingest_cpu = cpu() - c  # the writer and its parsing workers: less sensitive to load
size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
kb.search("warmup")
times = []
for _ in range(3):
    for q in queries:
        t = time.perf_counter(); kb.search(q, limit=5); times.append(time.perf_counter() - t)
t = time.perf_counter(); kb.state(); state = time.perf_counter() - t
kb.close()
conn = sqlite3.connect(db)
stat = dict(conn.execute(
    "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 6"))
conn.close()
times.sort()
print(json.dumps({"ingest": ingest, "ingest_cpu": ingest_cpu, "size": size,
                  "p50": times[len(times) // 2], "state": state, "dbstat": stat,
                  "from": kenso_git.__file__}))
"""


KEYS = ("ingest", "ingest_cpu", "size", "p50", "state")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _one(src: Path, root: Path, work: Path, queries: list[str]) -> dict[str, object]:
    db = work / f"idx-{len(list(work.glob('idx-*')))}.db"
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), str(root), json.dumps(queries)],
        env=env,
        cwd=work,  # not this checkout: `python -c` puts the cwd first on sys.path
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for path in work.glob(db.name + "*"):
        path.unlink()
    result: dict[str, object] = json.loads(out)
    assert str(result["from"]).startswith(str(src)), result["from"]  # the tree asked for
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path, nargs="?", default=HERE.parent)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=int, default=1, help="copies of the corpus (30: monorepo)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_core import QUERIES

    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        for i in range(args.scale):
            shutil.copytree(
                args.corpus, root / "docs" / f"d{i:02d}" if args.scale > 1 else root / "docs"
            )
        _git(root, "init", "-q", "-b", "main")
        _git(root, "add", "-A")
        _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "c")
        corpus = sum(p.stat().st_size for p in (root / "docs").rglob("*.md"))
        results: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, src in trees.items():
                results[name].append(_one(src, root, Path(tmp), QUERIES))
    med: dict[str, dict[str, float]] = {}
    for name, runs in results.items():
        med[name] = {key: statistics.median(float(str(r[key])) for r in runs) for key in KEYS}
        m = med[name]
        print(
            f"{name}: ingest {m['ingest']:.2f} s ({m['ingest_cpu']:.2f} s CPU), "
            f"index {m['size'] / 1e6:.2f} MB "
            f"({m['size'] / corpus:.2f}x corpus {corpus / 1e6:.2f} MB), "
            f"search p50 {m['p50'] * 1e3:.2f} ms, state {m['state'] * 1e3:.1f} ms"
        )
        stat = runs[-1]["dbstat"]
        assert isinstance(stat, dict)
        print("   dbstat MB: " + ", ".join(f"{k} {v / 1e6:.2f}" for k, v in stat.items()))
    for key in KEYS:
        print(f"new/base {key}: {med['new'][key] / med['base'][key]:.3f}")
    print(f"x{args.scale}, {args.runs} runs, load {os.getloadavg()}")


if __name__ == "__main__":
    main()
