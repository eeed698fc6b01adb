"""Monorepo scale point (#32), run by hand: a generated monorepo of `--docs` documents (default
100,000) made from the real docs corpus, against the 1x corpus, with floors measured in the
same run.

    python benchmarks/bench_scale.py [--docs 100000] [--corpus DIR] [--runs 3] [--keep DIR]
                                     [--skip-1x] [--reads-only]

Each copy of the corpus goes under `packages/pNNN/` with its file names and its text varied
(the title and a sentence name the package), so no two documents are the same blob and each
package's relative links resolve inside it, as in a monorepo whose packages carry their docs
(357,015 links at 100,000 docs).
Measures, at 1x and at the scale point:

- cold `kenso-git ingest` (lint summary included) and `--no-lint`, against the floor (read
  + blob-hash every file + insert the raw text into one FTS5 table in one transaction);
- a no-change `kenso-git sync` (beside a plain `git status`, its floor); a CLI `search`
  after one edit (its query-time sync); a hooked `git checkout` of a branch that changes 10
  docs (hooks installed), and the time until the index has them;
- index size; peak RSS of `ingest`, `lint` and `serve` (stdio, after `health_check`, a
  search and a zero-hit search);
- each read path in a fresh process: `health_check` and `index_state` with no watcher (each
  runs the query-time check, one `git status`) and with a healthy watcher (as `serve` runs,
  the check skipped), the first zero-hit search (time and RSS it adds; the check apart),
  in-process search p50/p95, the query-time check with no watcher, with a healthy
  watcher and with the quiet watch (index/quiet.py; and the second check that arms it),
  and the read floor (a fresh process opening the index with sqlite3 and running
  one FTS5 query).

Targets (issue #32, at 30x and 100k docs): health_check <= 20 ms, first zero-hit search <=
50 ms and <= 10 MB, in-process search p95 <= 20 ms, query-time check <= 1 ms with a healthy
watcher; at 100k cold ingest <= 3x the floor, no-change sync <= 0.25 s, ingest and serve RSS
<= 250 MB. Numbers on a loaded machine are indicative: rerun on a quiet one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
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
EXE = Path(sys.executable).parent / "kenso-git"
IDENT = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")
_TITLE = re.compile(r"^(title:\s*)(.+)$", re.MULTILINE)
_H1 = re.compile(r"^(# .+)$", re.MULTILINE)


def _tagged_title(match: re.Match[str], tag: str) -> str:
    """The title line with the copy's tag, still valid YAML: inside a quoted title's quotes
    (`"How to: Create a Pen" (p000)` is no YAML, and 3 in 4 docs-desktop titles are quoted)."""
    key, value = match.group(1), match.group(2).rstrip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return f"{key}{value[:-1]} ({tag}){value[-1]}"
    return f"{key}{value} ({tag})"


# One read path per run of this script in a fresh process (argv: root, kind); prints JSON.
PROBE = r"""
import json, os, resource, sys, time
from pathlib import Path
root, kind = Path(sys.argv[1]), sys.argv[2]

def rss_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

out = {}
if kind == "floor":
    import sqlite3
    t = time.perf_counter()
    conn = sqlite3.connect(f"file:{root / '.kenso' / 'docs.db'}?mode=ro", uri=True)
    conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'binding' "
                 "ORDER BY rank LIMIT 10").fetchall()
    out["s"] = time.perf_counter() - t
elif kind == "health":
    os.environ["KENSO_QUERY_WATCH"] = "0"  # each call runs its check: the quiet watch apart
    from kenso_git.serve.service import Service
    service = Service(root)
    t = time.perf_counter(); service.health(); out["first_s"] = time.perf_counter() - t
    warm = []
    for _ in range(7):
        t = time.perf_counter(); service.health(); warm.append(time.perf_counter() - t)
    out["warm_s"] = sorted(warm)[3]
    t = time.perf_counter(); service.state(); out["state_s"] = time.perf_counter() - t
    from kenso_git.triggers.watcher import Watcher
    watcher = Watcher(service.kb())  # as `serve` runs it: its checks are then skipped
    watcher.start()
    watcher.wait_until(lambda st: st.checks >= 2 and st.mode == "events", 300)
    watched = []
    for _ in range(7):
        t = time.perf_counter(); service.health(); watched.append(time.perf_counter() - t)
    out["watched_s"] = sorted(watched)[3]
    t = time.perf_counter(); service.state(); out["state_watched_s"] = time.perf_counter() - t
    watcher.stop()
elif kind == "zero":
    from kenso_git.kb import KnowledgeBase
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)  # the check is measured apart
    kb.search("binding")  # opens the index, loads the search modules
    before = rss_mb()
    t = time.perf_counter()
    result = kb.search("bindnig qzxwv")
    out["s"] = time.perf_counter() - t
    out["mb"] = rss_mb() - before
    out["corrected"] = result.corrected_query
elif kind == "search":
    from kenso_git.kb import KnowledgeBase
    queries = ["deployment", "data binding", "dependency property", "high dpi", "clipboard",
               "printing", "localization", "validation rules", "styles and templates",
               "keyboard input", "mouse events", "BindingSource", "accessibility"]
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)  # the check is measured apart
    for q in queries:
        kb.search(q)
    times = []
    for i in range(60):
        t = time.perf_counter(); kb.search(queries[i % len(queries)])
        times.append(time.perf_counter() - t)
    times.sort()
    out["p50_s"] = times[len(times) // 2]
    out["p95_s"] = times[int(len(times) * 0.95)]
elif kind == "check":
    from kenso_git.kb import KnowledgeBase
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_watch=False)  # each check runs git status
    kb.refresh()
    plain = []
    for _ in range(9):
        t = time.perf_counter(); kb.refresh(); plain.append(time.perf_counter() - t)
    out["plain_s"] = sorted(plain)[4]
    quiet_kb = KnowledgeBase.open(root)
    quiet_kb.refresh()
    t = time.perf_counter(); quiet_kb.refresh()  # the second check starts arming the watch
    out["quiet_second_s"] = time.perf_counter() - t
    quiet_kb._quiet.wait_armed(600)
    out["quiet_arm_s"] = time.perf_counter() - t  # its thread's walk, beside no query
    quiet_kb.refresh()  # the first check on the armed queue: trusted from then on
    quiet = []
    for _ in range(9):
        t = time.perf_counter(); quiet_kb.refresh(); quiet.append(time.perf_counter() - t)
    out["quiet_s"] = sorted(quiet)[4]
    out["quiet_vouched"] = quiet_kb._quiet is not None and quiet_kb._quiet.vouched >= 9
    from kenso_git.triggers.watcher import Watcher
    watcher = Watcher(kb)
    watcher.start()
    watcher.wait_until(lambda st: st.checks >= 2 and st.mode == "events", 120)
    watched = []
    for _ in range(9):
        t = time.perf_counter(); kb.refresh(); watched.append(time.perf_counter() - t)
    out["watched_s"] = sorted(watched)[4]
    out["vouched"] = kb.watch_seq is not None and kb.watch_seq.vouches()
    watcher.stop()
print(json.dumps(out))
"""

SERVE_CLIENT = r"""
import sys, anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

async def main(root, exe, out):
    params = StdioServerParameters(
        command="/usr/bin/time", args=["-f", "%M", "-o", out, exe, "serve"], cwd=root)
    async with Client(params) as client:
        await client.call_tool("health_check", {})
        await client.call_tool("search_docs", {"query": "data binding"})
        await client.call_tool("search_docs", {"query": "bindnig qzxwv"})

anyio.run(main, *sys.argv[1:4])
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *IDENT, *args], cwd=root, check=True, capture_output=True)


def _run(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return time.perf_counter() - started


def _peak_mb(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(seconds, peak RSS MB) of one command, through /usr/bin/time."""
    started = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed, int(proc.stderr.strip().splitlines()[-1]) / 1024


def _probe(root: Path, kind: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), kind],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _med(values: list[float]) -> float:
    return statistics.median(values)


def generate(corpus: Path, root: Path, docs: int) -> int:
    """Write `docs` documents under `root` (copies of `corpus`, varied) and commit them.

    Raises:
        SystemExit: `corpus` holds no Markdown file (or is no folder): there is nothing to
            copy, and the copies would never reach `docs`.
    """
    sources = sorted(corpus.rglob("*.md"))
    if not sources and docs > 0:
        what = "no Markdown file" if corpus.is_dir() else "no such folder"
        raise SystemExit(f"corpus {corpus}: {what}, nothing to copy: name one with --corpus DIR")
    texts = [
        (p.relative_to(corpus), p.read_text(encoding="utf-8", errors="replace")) for p in sources
    ]
    written = 0
    copy = 0
    while written < docs:
        base = root / "packages" / f"p{copy:03d}"
        for rel, text in texts:
            if written >= docs:
                break
            tag = f"p{copy:03d}"
            varied = _TITLE.sub(lambda m, t=tag: _tagged_title(m, t), text, count=1)
            varied = _H1.sub(
                lambda m, t=tag: f"{m.group(1)}\n\nPackage {t} keeps this page, copy {t}.",
                varied,
                count=1,
            )
            target = base / rel  # each package keeps the docs' names: their links resolve
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(varied, encoding="utf-8")
            written += 1
        copy += 1
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "corpus")
    return written


def floor(root: Path, work: Path) -> float:
    """Read + blob-hash every doc + insert the raw text into one FTS5 table, one transaction."""
    started = time.perf_counter()
    texts = []
    for path in sorted(root.rglob("*.md")):
        if ".kenso" in path.parts or ".git" in path.parts:
            continue
        data = path.read_bytes()
        hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()
        texts.append((data.decode("utf-8", "replace"),))
    db = work / "floor.db"
    db.unlink(missing_ok=True)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO f(body) VALUES (?)", texts)
    conn.execute("COMMIT")
    conn.close()
    db.unlink()
    return time.perf_counter() - started


def _drop_index(root: Path) -> None:
    shutil.rmtree(root / ".kenso", ignore_errors=True)


def writes(root: Path, work: Path, runs: int) -> dict[str, float]:
    """The write paths of one tree (its index is left built, hooks installed)."""
    out: dict[str, float] = {}
    out["floor_s"] = _med([floor(root, work) for _ in range(runs)])
    colds, rss = [], []
    for _ in range(runs):
        _drop_index(root)
        seconds, peak = _peak_mb([str(EXE), "ingest"], root)
        colds.append(seconds)
        rss.append(peak)
    out["ingest_s"], out["ingest_rss_mb"] = _med(colds), max(rss)
    _drop_index(root)
    out["ingest_no_lint_s"], out["ingest_no_lint_rss_mb"] = _peak_mb(
        [str(EXE), "ingest", "--no-lint"], root
    )
    out["sync_s"] = _med([_run([str(EXE), "sync"], root) for _ in range(runs)])
    # the sync's floor: the one `git status` of the tree it cannot do without
    status = ["git", "status", "--porcelain", "--untracked-files=normal"]
    out["git_status_s"] = _med([_run(status, root) for _ in range(runs)])
    out["db_mb"] = (
        sum(p.stat().st_size for p in (root / ".kenso").glob("docs.db*") if p.is_file()) / 1e6
    )
    out["lint_s"], out["lint_rss_mb"] = _peak_mb([str(EXE), "lint", ".", "--json"], root)
    first = sorted(root.rglob("*.md"))[0]
    with first.open("a", encoding="utf-8") as handle:
        handle.write("\n\nA quokka sentence added by the benchmark.\n")
    out["search_after_edit_s"] = _run([str(EXE), "search", "quokka"], root)
    out.update(_checkout(root))
    out.update(_serve(root, work))
    return out


def _checkout(root: Path) -> dict[str, float]:
    """Time a hooked `git checkout` of a branch changing 10 docs, and until the index has it."""
    subprocess.run([str(EXE), "hooks", "install"], cwd=root, check=True, capture_output=True)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "edit")
    branch = f"ten-{time.time_ns()}"  # a kept tree may hold the branch of an earlier run
    _git(root, "checkout", "-q", "-b", branch)
    for path in sorted(root.rglob("*.md"))[1:11]:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\n\n## Benchmark wombat\n\nThis wombat section is on the ten branch.\n")
    _git(root, "commit", "-q", "-am", "ten")
    _git(root, "checkout", "-q", "main")
    subprocess.run([str(EXE), "sync"], cwd=root, check=True, capture_output=True)
    started = time.perf_counter()
    _git(root, "checkout", "-q", branch)
    checkout = time.perf_counter() - started
    db = root / ".kenso" / "docs.db"
    while time.perf_counter() - started < 120:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            hits = conn.execute(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'wombat'"
            ).fetchone()[0]
        except sqlite3.Error:
            hits = 0
        finally:
            conn.close()
        if hits >= 10:
            break
        time.sleep(0.01)
    indexed = time.perf_counter() - started
    _git(root, "checkout", "-q", "main")
    return {"checkout_s": checkout, "checkout_indexed_s": indexed}


def _serve(root: Path, work: Path) -> dict[str, float]:
    out = work / "serve-rss"
    out.unlink(missing_ok=True)
    subprocess.run(
        [sys.executable, "-c", SERVE_CLIENT, str(root), str(EXE), str(out)],
        check=True,
        capture_output=True,
        timeout=1800,
    )
    return {"serve_rss_mb": int(out.read_text().strip().splitlines()[-1]) / 1024}


def reads(root: Path) -> dict[str, float]:
    """The read paths of one indexed tree, each in fresh processes."""
    out: dict[str, float] = {}
    out["read_floor_s"] = _med([_probe(root, "floor")["s"] for _ in range(5)])
    health = _probe(root, "health")
    out["health_first_s"], out["health_s"] = health["first_s"], health["warm_s"]
    out["state_s"], out["health_watched_s"] = health["state_s"], health["watched_s"]
    out["state_watched_s"] = health["state_watched_s"]
    zeros = [_probe(root, "zero") for _ in range(3)]
    out["zero_hit_s"] = _med([z["s"] for z in zeros])
    out["zero_hit_mb"] = _med([z["mb"] for z in zeros])
    search = _probe(root, "search")
    out["search_p50_s"], out["search_p95_s"] = search["p50_s"], search["p95_s"]
    check = _probe(root, "check")
    out["check_s"], out["check_watched_s"] = check["plain_s"], check["watched_s"]
    out["check_quiet_s"], out["quiet_arm_s"] = check["quiet_s"], check["quiet_arm_s"]
    out["quiet_second_s"] = check["quiet_second_s"]
    out["quiet_vouched"] = float(check["quiet_vouched"])
    out["watcher_vouched"] = float(check["vouched"])
    return out


ROWS = [
    ("floor: read + hash + FTS5 insert (s)", "floor_s", None),
    ("cold `ingest`, lint summary included (s)", "ingest_s", None),
    ("cold ingest / floor", "ingest_ratio", "<= 3"),
    ("cold `ingest --no-lint` (s)", "ingest_no_lint_s", None),
    ("no-change `sync` (s)", "sync_s", "<= 0.25 (100k)"),
    ("... floor: plain `git status` of the tree (s)", "git_status_s", None),
    ("CLI `search` after one edit (s)", "search_after_edit_s", None),
    ("hooked `git checkout` of 10 docs (s)", "checkout_s", None),
    ("... until the index has them (s)", "checkout_indexed_s", None),
    ("index size (MB)", "db_mb", None),
    ("peak RSS `ingest` (MB)", "ingest_rss_mb", "<= 250"),
    ("peak RSS `ingest --no-lint` (MB)", "ingest_no_lint_rss_mb", None),
    ("`lint .` (s)", "lint_s", None),
    ("peak RSS `lint` (MB)", "lint_rss_mb", None),
    ("peak RSS `serve` (MB)", "serve_rss_mb", "<= 250"),
    ("read floor: fresh process, one FTS5 query (ms)", "read_floor_ms", None),
    ("health_check, first of a process (ms)", "health_first_ms", None),
    ("health_check, no watcher (ms)", "health_ms", None),
    ("health_check, healthy watcher (ms)", "health_watched_ms", "<= 20"),
    ("index_state, no watcher (ms)", "state_ms", None),
    ("index_state, healthy watcher (ms)", "state_watched_ms", None),
    ("first zero-hit search, check apart (ms)", "zero_hit_ms", "<= 50"),
    ("first zero-hit search, RSS added (MB)", "zero_hit_mb", "<= 10"),
    ("in-process search p50 (ms)", "search_p50_ms", None),
    ("in-process search p95 (ms)", "search_p95_ms", "<= 20"),
    ("query-time check, no watcher (ms)", "check_ms", None),
    ("query-time check, healthy watcher (ms)", "check_watched_ms", "<= 1"),
    ("query-time check, quiet watch, nothing changed (ms)", "check_quiet_ms", None),
    ("... second check of a process, which starts arming it (ms)", "quiet_second_ms", None),
    ("... until it is armed, in a thread (ms)", "quiet_arm_ms", None),
]


def _derived(m: dict[str, float]) -> dict[str, float]:
    out = dict(m)
    if "ingest_s" in m:
        out["ingest_ratio"] = m["ingest_s"] / m["floor_s"]
    for key in list(m):
        if (
            key.endswith("_s")
            and key not in ("floor_s",)
            and key[:-2] + "_ms" in {r[1] for r in ROWS}
        ):
            out[key[:-2] + "_ms"] = m[key] * 1000
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000, help="documents at the scale point")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=3, help="runs of the cold ingest and sync")
    ap.add_argument("--keep", type=Path, default=None, help="build the trees here and keep them")
    ap.add_argument("--skip-1x", action="store_true", help="measure the scale point only")
    ap.add_argument(
        "--reads-only", action="store_true", help="only the read paths, of trees --keep holds"
    )
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="kenso-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    one = len(list(args.corpus.rglob("*.md")))
    if not one:
        raise SystemExit(f"no Markdown under {args.corpus}: name the corpus with --corpus DIR")
    results: dict[str, dict[str, float]] = {}
    try:
        sizes = [("1x", one)] if not args.skip_1x else []
        sizes.append((f"{args.docs:,} docs", args.docs))
        for label, docs in sizes:
            root = work / f"tree-{docs}"
            if not (root / ".git").is_dir():
                started = time.perf_counter()
                made = generate(args.corpus, root, docs)
                print(
                    f"{label}: generated {made:,} docs in {time.perf_counter() - started:.0f} s",
                    flush=True,
                )
            measured = {} if args.reads_only else writes(root, work, args.runs)
            print(f"{label}: writes {json.dumps(measured)}", flush=True)
            measured.update(reads(root))
            print(f"{label}: reads done", flush=True)
            results[label] = _derived(measured)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    _report(results, os.getloadavg()[0])


def _report(results: dict[str, dict[str, float]], load: float) -> None:
    labels = list(results)
    print()
    print(f"load average at the end: {load:.1f} (numbers on a loaded machine are indicative)")
    header = f"{'measure':<48}" + "".join(f"{lab:>16}" for lab in labels) + "  target"
    print(header)
    print("-" * len(header))
    for name, key, target in ROWS:
        cells = "".join(
            f"{results[lab][key]:16.3f}" if key in results[lab] else f"{'-':>16}" for lab in labels
        )
        print(f"{name:<48}{cells}  {target or ''}")
    if len(labels) == 2:
        small, big = (results[lab] for lab in labels)
        print()
        keys = ("health_watched_ms", "state_watched_ms", "zero_hit_ms", "search_p95_ms")
        for key in (*keys, "check_watched_ms"):
            print(f"{key}: {big[key] / small[key]:.2f}x the 1x time")


if __name__ == "__main__":
    main()
