"""Walking every page of a long `get_related` answer (run by hand).

    .venv/bin/python benchmarks/bench_related_paging.py [--docs 9600] [--runs 3] [--base SRC_DIR]

Builds a temporary git repo whose `hub.md` is linked from DOCS pages (hub.md's depth-1 list
is DOCS rows, ~30 pages of at most 48,000 characters at 9,600), ingests it, then walks every
page of that list through the MCP tool's handler (`Service.get_related`, the scope gate
included): the first page, all pages, and the median later page, with query-sync on (as
served: each call also pays the query-time check's walk of the tree, #16's cost) and off
(the tool's own cost). With --base, the same for another source tree of kenso_git (e.g.
`git archive <commit> | tar -x -C DIR`), runs alternating, each in a fresh interpreter, so
both see the same machine load; the last lines give the ratios (base / this checkout).
Walking all pages should cost about what the first page does times a small constant, not
the number of pages times it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# Run in a fresh interpreter with the kenso_git under test first on sys.path.
_TIME = r"""
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
os.environ["KENSO_QUERY_SYNC"] = sys.argv[3]
from pathlib import Path
from kenso_git.serve.service import Service

service = Service(Path(sys.argv[2]))

def walk():
    cursor, times, rows, pages = None, [], 0, 0
    while True:
        t = time.perf_counter()
        _, page = service.get_related("hub.md", 1, None, cursor)
        times.append(time.perf_counter() - t)
        rows += len(page["results"])
        cursor = page.get("next_cursor")
        if cursor is None:
            return times, rows

walk()  # warm: the index opened, the first query-time check done
times, rows = walk()
print(json.dumps({"first": times[0], "all": sum(times), "pages": len(times), "rows": rows,
                  "later": statistics.median(times[1:]) if len(times) > 1 else 0.0}))
"""


def build(root: Path, docs: int) -> None:
    """A git repo of `docs` pages, each linking to hub.md, indexed by this checkout."""
    (root / "docs").mkdir(parents=True)
    hub = "# Hub\n\nThe hub every page links back to.\n\n## Hub details\n\nIt says nothing else.\n"
    (root / "hub.md").write_text(hub, encoding="utf-8")
    for i in range(docs):
        (root / "docs" / f"page-{i:05d}.md").write_text(
            f"# Page {i}\n\nPage {i} explains how the system behaves in detail.\n\n"
            f"## Page {i} details\n\nThe page {i} section carries enough words to index. "
            "Back to the [hub](../hub.md).\n",
            encoding="utf-8",
        )
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)
    who = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(
        ["git", *who, "commit", "-q", "-m", "hub"],
        cwd=root,
        check=True,
        env=env,
    )
    code = "import sys; from pathlib import Path; from kenso_git.kb import KnowledgeBase; "
    code += "KnowledgeBase.open(Path(sys.argv[1])).ingest()"
    subprocess.run([sys.executable, "-c", code, str(root)], cwd=REPO, check=True)


def timed(tree: Path, root: Path, sync: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _TIME, str(tree), str(root), sync],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    if out.returncode:
        sys.exit(f"timing {tree} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=9600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", type=Path, help="another kenso_git source tree to compare")
    args = parser.parse_args()
    trees = {"this": REPO, **({"base": args.base.resolve()} if args.base else {})}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        build(root, args.docs)
        results: dict[tuple[str, str], list[dict[str, float]]] = {}
        for _ in range(args.runs):
            for sync in ("1", "0"):
                for name, tree in trees.items():
                    results.setdefault((name, sync), []).append(timed(tree, root, sync))
    medians: dict[tuple[str, str], dict[str, float]] = {}
    print(f"get_related hub.md, depth 1: {args.docs} rows, median of {args.runs} runs")
    for (name, sync), runs in results.items():
        m = {k: statistics.median(r[k] for r in runs) for k in ("first", "all", "later")}
        medians[name, sync] = m
        pages = runs[0]["pages"]
        print(
            f"  {name:<4} query-sync {'on ' if sync == '1' else 'off'}  {pages:>3} pages"
            f"  first {m['first'] * 1000:7.1f} ms  all {m['all'] * 1000:8.1f} ms"
            f"  later page {m['later'] * 1000:6.1f} ms  all/first {m['all'] / m['first']:5.1f}"
        )
    if args.base:
        for sync in ("1", "0"):
            this, base = medians["this", sync], medians["base", sync]
            print(
                f"  base/this, query-sync {'on ' if sync == '1' else 'off'}:"
                f"  first {base['first'] / this['first']:.2f}x"
                f"  all {base['all'] / this['all']:.2f}x"
                f"  later page {base['later'] / this['later']:.2f}x"
            )


if __name__ == "__main__":
    main()
