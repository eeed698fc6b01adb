"""Index size and relation-graph reads of the docs corpus (issue #16; run by hand).

    python benchmarks/bench_links.py [CORPUS_DIR] [--base SRC_DIR] [--runs 5]

Copies CORPUS_DIR (default ../shared/corpora/docs-desktop/docs) into a temporary git repo,
ingests it fresh with this checkout's kenso_git and, with --base, with another source tree
of it (e.g. `git archive <commit> | tar -x -C DIR`): the same machine load for both. Prints
the index size (db + -wal + -shm, and x the corpus), the dbstat breakdown of the largest
objects, and the median time of the relation-graph reads over the most linked documents:
get_related depth 1 and 3, find_related, and search (its related counts and rerank).
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
REPO = HERE.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "docs-desktop" / "docs"

# Run in a fresh interpreter with the kenso_git under test first on sys.path: the first
# ingests, the second times the reads (the two trees' timing runs alternate).
_BUILD = r"""
import json, sqlite3, sys
from pathlib import Path
from kenso_git.kb import KnowledgeBase

kb = KnowledgeBase.open(Path(sys.argv[1]))
kb.ingest()
kb.close()
db = kb.db_path
size = sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal", "-shm")
           if Path(f"{db}{s}").exists())
conn = sqlite3.connect(db)
stat = conn.execute(
    "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 12").fetchall()
free = conn.execute("PRAGMA freelist_count").fetchone()[0] * conn.execute(
    "PRAGMA page_size").fetchone()[0]
nlinks = conn.execute("SELECT COUNT(*) FROM links").fetchone()[0]
print(json.dumps({"db": str(db), "size": size, "free": free, "links": nlinks, "dbstat": stat}))
"""
_TIME = r"""
import json, sqlite3, sys, time
from kenso_git.kb import KnowledgeBase
from kenso_git.search.graph import neighbours, related
from kenso_git.search.ranked import hits
from pathlib import Path

conn = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
top = [r[0] for r in conn.execute(
    "SELECT p, COUNT(*) FROM (SELECT source_path p FROM links UNION ALL "
    "SELECT target_path FROM links) GROUP BY p ORDER BY 2 DESC, 1 LIMIT 50")]

def timed(fn, reps=20):
    fn(top[0])
    t = time.perf_counter()
    for _ in range(reps):
        for p in top:
            fn(p)
    return (time.perf_counter() - t) / reps / len(top) * 1000

kb = KnowledgeBase.open(Path(sys.argv[2]))
print(json.dumps({
    "get_related depth 1 (ms)": timed(lambda p: related.get_related(conn, p, depth=1)),
    "get_related depth 3 (ms)": timed(lambda p: related.get_related(conn, p, depth=3), 2),
    "find_related (ms)": timed(lambda p: neighbours.find_related(conn, p), 5),
    "related_counts of 50 (ms)": timed(lambda p: hits.related_counts(conn, top)),
    "kb.search 'data binding' (ms)": timed(lambda p: kb.search("data binding"), 1),
}))
"""


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
    }
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def corpus_bytes(corpus: Path) -> int:
    return sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())


def child(src: Path, code: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=src,  # the tree under test first on sys.path
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def build(src: Path, corpus: Path, work: Path, label: str) -> tuple[Path, dict[str, object]]:
    repo = work / label
    shutil.copytree(corpus, repo / "docs")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "corpus")
    return repo, child(src, _BUILD, str(repo))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--base", type=Path, help="source tree of the baseline kenso_git")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = corpus_bytes(args.corpus)
    print(f"corpus: {args.corpus} {size / 1e6:.2f} MB")
    trees = [("this", REPO)] + ([("base", args.base)] if args.base else [])
    results: dict[str, dict[str, object]] = {}
    reads: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    with tempfile.TemporaryDirectory() as tmp:
        repos = {}
        for label, src in trees:
            repos[label], results[label] = build(src, args.corpus, Path(tmp), label)
        for run in range(args.runs):  # alternating, each first in turn: the same load
            for label, src in trees[:: 1 if run % 2 else -1]:
                db = str(results[label]["db"])
                reads[label].append(child(src, _TIME, db, str(repos[label])))  # type: ignore[arg-type]
    for label, runs in reads.items():
        results[label]["reads"] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    for label, r in results.items():
        index = int(r["size"])  # type: ignore[call-overload]
        print(
            f"\n[{label}] index {index / 1e6:.2f} MB = {index / size:.2f}x corpus, "
            f"free {int(r['free']) / 1e6:.2f} MB, {r['links']} links"
        )  # type: ignore[call-overload]
        for name, pg in r["dbstat"]:  # type: ignore[attr-defined]
            print(f"  {name:<32} {pg / 1e6:8.2f} MB")
        for name, ms in r["reads"].items():  # type: ignore[attr-defined]
            print(f"  {name:<32} {ms:8.2f}")
    if "base" in results:
        print("\nratio this/base:")
        for name, ms in results["this"]["reads"].items():  # type: ignore[attr-defined]
            print(f"  {name:<32} {ms / results['base']['reads'][name]:8.2f}")  # type: ignore[index]


if __name__ == "__main__":
    main()
