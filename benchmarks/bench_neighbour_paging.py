"""Walking every page of a long `find_related` and `changed_docs` answer (run by hand).

    .venv/bin/python benchmarks/bench_neighbour_paging.py [--docs 4800] [--runs 3] [--base SRC_DIR]

Builds a temporary git repo whose `docs/hub.md` is linked from DOCS pages in its folder
(find_related's list of it is DOCS rows; every fourth page also relates to it 12 ways, so
some pages are cut by the answer budget), the pages added in one commit after a tag `base`
(changed_docs since base lists them), ingests it, then walks every page, query-sync off
(each tool's own cost), of:

- `find_related` as served (`Service.find_related`: the MCP tool and the `related` command;
  its gate names no scope, so no list is kept: each page makes the list again),
- `find_related` with the same gate naming its scope (`NamedGate(gate, scope)`, as
  `Service.get_related` passes it: a later page is cut from the list its first page made),
- `find_related` as served of `notes/note.md`, related to the hub only (one page: the gate
  judged every indexed document, it now judges the two),
- `changed_docs` since base, to HEAD and to the work tree.

"first" is the median of five first pages, "all" one walk of every page, "later page" the
median page after the first. With --base, the same for another source tree of kenso_git (e.g.
`git archive <commit> | tar -x -C DIR`), runs alternating, each in a fresh interpreter, so
both see the same machine load; the last lines give the ratios (base / this checkout).

At 4,800 docs, 5 runs, against the tree before the change (a shared 2-core machine): all
97 pages of find_related with a named gate 5,640 -> 149 ms (37.8x; a later page 58.8 ->
0.9 ms), its first page the same (1.03x); served, its gate naming no scope, unchanged
(0.95x, noise); the one page of notes/note.md 27.8 -> 1.3 ms (20.8x); all 27 pages of
changed_docs 1,697 -> 1,288 ms to HEAD (1.32x) and 2,864 -> 2,203 ms to the work tree
(1.30x): the rest of a page is git's diff and log of the whole range, run again each page.
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
CASES = (
    "find_related served",
    "find_related named",
    "find_related note",
    "changed_docs HEAD",
    "changed_docs tree",
)

# Run in a fresh interpreter with the kenso_git under test first on sys.path.
_TIME = r"""
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
os.environ["KENSO_QUERY_SYNC"] = "0"
from pathlib import Path
from kenso_git.api.search import NamedGate
from kenso_git.serve.service import Service

service = Service(Path(sys.argv[2]))
HUB = "docs/hub.md"

def served(cursor):
    return service.find_related(HUB, 50, cursor)[0]

def named(cursor):
    scope = service.scope
    rel = scope.resolve(HUB)
    with scope.gating(service.kb().same_file()) as gate:
        return service.kb().find_related(
            rel, page_size=50, cursor=cursor, path_filter=NamedGate(gate, scope)
        )

def changed(until):
    return lambda cursor: service.changed_docs("base", until, None, cursor)[0]

def walk(call):
    cursor, times, rows = None, [], 0
    while True:
        t = time.perf_counter()
        page = call(cursor)
        times.append(time.perf_counter() - t)
        rows += len(page["results"])
        cursor = page.get("next_cursor")
        if cursor is None:
            return times, rows

out = {}
def note(cursor):
    return service.find_related("notes/note.md", 50, cursor)[0]

for name, call in [("find_related served", served), ("find_related named", named),
                   ("find_related note", note),
                   ("changed_docs HEAD", changed("HEAD")), ("changed_docs tree", changed(None))]:
    walk(call)  # warm: the index opened, the metadata read, git's objects in the page cache
    firsts = []
    for _ in range(5):  # a first page alone is one short sample: take the median of five
        t = time.perf_counter()
        call(None)
        firsts.append(time.perf_counter() - t)
    times, rows = walk(call)
    out[name] = {"first": statistics.median(firsts), "all": sum(times), "pages": len(times),
                 "rows": rows, "later": statistics.median(times[1:]) if len(times) > 1 else 0.0}
print(json.dumps(out))
"""


def build(root: Path, docs: int) -> None:
    """A git repo: `base`, then a commit of `docs` pages linking to docs/hub.md."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    who = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]

    def git(*args: str) -> None:
        subprocess.run(["git", *who, *args], cwd=root, check=True, env=env)

    (root / "docs").mkdir(parents=True)
    hub = "# Hub\n\nThe hub every page links back to.\n\n## Hub details\n\nIt says nothing else.\n"
    (root / "docs" / "hub.md").write_text(hub, encoding="utf-8")
    (root / "notes").mkdir()
    note = "# Note\n\nA note on the [hub](../docs/hub.md) and nothing else at all.\n"
    (root / "notes" / "note.md").write_text(note, encoding="utf-8")
    (root / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "hub")
    git("tag", "base")
    relates = "".join(
        f"  - path: hub.md\n    relation: depends-on-part-{k:02d}-of-the-hub\n" for k in range(12)
    )
    for i in range(docs):
        front = f"---\nrelates_to:\n{relates}---\n" if i % 4 == 0 else ""
        (root / "docs" / f"page-{i:05d}.md").write_text(
            f"{front}# Page {i}\n\nPage {i} explains how the system behaves in detail.\n\n"
            f"## Page {i} details\n\nThe page {i} section carries enough words to index. "
            "Back to the [hub](hub.md).\n",
            encoding="utf-8",
        )
    git("add", "-A")
    git("commit", "-q", "-m", "pages")
    code = "import sys; from pathlib import Path; from kenso_git.kb import KnowledgeBase; "
    code += "KnowledgeBase.open(Path(sys.argv[1])).ingest()"
    subprocess.run([sys.executable, "-c", code, str(root)], cwd=REPO, check=True)


def timed(tree: Path, root: Path) -> dict[str, dict[str, float]]:
    out = subprocess.run(
        [sys.executable, "-c", _TIME, str(tree), str(root)],
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
    parser.add_argument("--docs", type=int, default=4800)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", type=Path, help="another kenso_git source tree to compare")
    args = parser.parse_args()
    trees = {"this": REPO, **({"base": args.base.resolve()} if args.base else {})}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        build(root, args.docs)
        runs: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                runs[name].append(timed(tree, root))
    print(f"{args.docs} docs related to docs/hub.md and changed since base, query-sync off,")
    print(f"page_size 50 for find_related; median of {args.runs} runs")
    medians: dict[tuple[str, str], dict[str, float]] = {}
    for case in CASES:
        for name in trees:
            r = [run[case] for run in runs[name]]
            m = {k: statistics.median(x[k] for x in r) for k in ("first", "all", "later")}
            medians[name, case] = m
            print(
                f"  {name:<4} {case:<20} {int(r[0]['pages']):>3} pages"
                f"  first {m['first'] * 1000:7.1f} ms  all {m['all'] * 1000:8.1f} ms"
                f"  later page {m['later'] * 1000:6.1f} ms  all/first {m['all'] / m['first']:5.1f}"
            )
    if args.base:
        for case in CASES:
            this, base = medians["this", case], medians["base", case]
            print(
                f"  base/this, {case:<20}"
                f"  first {base['first'] / this['first']:.2f}x"
                f"  all {base['all'] / this['all']:.2f}x"
                + (f"  later page {base['later'] / this['later']:.2f}x" if this["later"] else "")
            )


if __name__ == "__main__":
    main()
