"""Git-history benchmarks of #29 (run by hand): python benchmarks/bench_history.py [CORPUS_DIR].

Builds a repository from the corpus with a history (git fast-import: the corpus, then
--commits commits each editing one of --docs docs), indexes it, and measures, whole
processes, median of --runs:
  kenso-git changed --since HEAD~1000 --json (1,000 commits, 500 docs)    <= 0.5 s
  kenso-git drift --json (a clone behind its upstream)                    printed
  the floor: `git log --name-status -M HEAD~1000..HEAD` alone             printed
  cold ingest with and without the last-commit rows (index/commits.py)    printed
  search --ref HEAD~10 --json (a revision 10 docs away from the checkout)  <= 0.3 s
  search --ref HEAD~COMMITS --json (every edited doc differs)             <= a cold ingest
  search --json at the checkout, for comparison                           printed
  the revision cache (store/revcache.py, api/revpool.py):
    search --ref HEAD~10 --json a second time (cached), whole process       printed
    a server's search_docs with ref=HEAD~10 (cached) against the checkout  p50 <= 1.2x
      (one `kenso-git serve` over stdio, the MCP Python SDK's client, --calls calls each)
    growth of the index's folder per cached revision against the text of
      the differing docs' chunks at that revision                          <= 1.05x
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared/corpora/docs-desktop/docs"
BIN = Path(sys.executable).parent
ENV = {
    **os.environ,
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    "GIT_CONFIG_NOSYSTEM": "1",
    "KENSO_HOOK_BACKGROUND_THRESHOLD": "0",
}


def timed(cwd: Path, *args: str) -> float:
    began = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - began


def median(cwd: Path, runs: int, *args: str) -> float:
    return statistics.median(timed(cwd, *args) for _ in range(runs))


def median_first(cwd: Path, runs: int, *args: str) -> float:
    """`median`, the revision cache emptied before each run: a first search at a revision."""
    values = []
    for _ in range(runs):
        (cwd / ".kenso" / "revisions.db").unlink(missing_ok=True)
        values.append(timed(cwd, *args))
    return statistics.median(values)


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def build(corpus: Path, root: Path, commits: int, docs: int, seed: int) -> list[str]:
    """A repository of the corpus with `commits` commits editing `docs` of its docs."""
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix.lower() == ".md")
    rng = random.Random(seed)
    edited = [f.relative_to(corpus).as_posix() for f in rng.sample(files, min(docs, len(files)))]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=ENV)
    stream: list[bytes] = []
    when = 1_700_000_000
    stream.append(b"commit refs/heads/main\n")
    stream.append(b"committer bench <bench@example.invalid> %d +0000\n" % when)
    stream.append(_data(b"the corpus"))
    for f in files:
        stream.append(b"M 100644 inline docs/%s\n" % f.relative_to(corpus).as_posix().encode())
        stream.append(_data(f.read_bytes()))
    texts = {rel: (corpus / rel).read_bytes() for rel in edited}
    for i in range(commits):
        rel = edited[i % len(edited)]
        texts[rel] += b"\n\nEdit %d of this page, made for the history benchmark.\n" % i
        when += 60
        stream.append(b"commit refs/heads/main\n")
        stream.append(b"committer bench <bench@example.invalid> %d +0000\n" % when)
        stream.append(_data(b"edit %d: docs/%s" % (i, rel.encode())))
        stream.append(b"M 100644 inline docs/%s\n" % rel.encode())
        stream.append(_data(texts[rel]))
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True, env=ENV
    )
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True, env=ENV)
    return edited


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under `folder`, the transient `revisions/` copies left out."""
    return sum(
        p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file() and "revisions" not in p.relative_to(folder).parts[:1]
    )


def chunk_bytes(root: Path, ref: str) -> tuple[int, int]:
    """(differing docs, characters of their chunks at `ref`): the docs whose text at `ref`
    is not the checkout's (the work tree is HEAD here), measured in the index at `ref`."""
    from kenso_git.api.revision import at_revision
    from kenso_git.kb import KnowledgeBase

    out = subprocess.run(
        ["git", "diff", "--no-renames", "--name-only", ref, "HEAD", "--", "*.md"],
        cwd=root,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    kb = KnowledgeBase.open(root)
    with at_revision(kb, ref) as (at, _revision):
        sizes = at.read(
            lambda conn: dict(
                conn.execute(
                    "SELECT file_path, sum(length(content)) FROM chunks GROUP BY file_path"
                ).fetchall()
            )
        )
    kb.close()
    return len(out), sum(sizes.get(path, 0) for path in out)


def empty_cache_bytes() -> int:
    """Bytes of a new, empty revision cache file (its tables' first pages)."""
    from kenso_git.store.revcache import Delta
    from kenso_git.store.revcache import RevisionCache

    with tempfile.TemporaryDirectory() as tmp:
        cache = RevisionCache(Path(tmp), 1, 1)
        cache.remember("0" * 40, "", "x", "", Delta({}, "[]"), {})
        return (Path(tmp) / "revisions.db").stat().st_size


async def served(root: Path, kg: str, query: str, ref: str, calls: int) -> tuple[float, float]:
    """Median seconds of `search_docs` at the checkout and with `ref`, one stdio server,
    interleaved; the first call of each warms up (and builds the revision's copy)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    plain: list[float] = []
    at_ref: list[float] = []
    params = StdioServerParameters(command=kg, args=["serve", "--no-watch"], cwd=root, env=ENV)
    async with Client(params) as client:
        await client.call_tool("search_docs", {"query": query})
        await client.call_tool("search_docs", {"query": query, "ref": ref})
        for _ in range(calls):
            for args, into in (({"query": query}, plain), ({"query": query, "ref": ref}, at_ref)):
                began = time.perf_counter()
                result = await client.call_tool("search_docs", args)
                into.append(time.perf_counter() - began)
                assert not result.is_error, result.content
    return statistics.median(plain), statistics.median(at_ref)


def cache_rows(
    root: Path, kg: str, runs: int, calls: int, query: str
) -> list[tuple[str, float, float | None]]:
    """The revision cache's measures (see the module docstring)."""
    rows: list[tuple[str, float, float | None]] = []
    cached = median(root, runs, kg, "search", query, "--ref", "HEAD~10", "--json")
    rows.append(("search --ref HEAD~10 --json, cached (whole process)", cached, None))
    plain, at_ref = asyncio.run(served(root, kg, query, "HEAD~10", calls))
    rows.append(("server: search_docs at the checkout (p50)", plain, None))
    rows.append(("server: search_docs ref=HEAD~10, cached (p50)", at_ref, plain * 1.2))
    print(f"\nserver p50 ratio, cached revision / checkout: {at_ref / plain:.2f} (target 1.2)")
    print("\ngrowth of .kenso per cached revision (revisions/ copies left out):")
    print(f"{'revision':<12} {'docs':>6} {'chunk text':>12} {'growth':>10} {'ratio':>7}")
    home = root / ".kenso"
    (home / "revisions.db").unlink(missing_ok=True)
    empty = empty_cache_bytes()
    print(f"(a new cache file's empty tables: {empty:,} bytes, in the first row's growth)")
    for n, ref in enumerate(("HEAD~10", "HEAD~20", "HEAD~100", "HEAD~300", "HEAD~1000")):
        before = folder_bytes(home)
        timed(root, kg, "search", query, "--ref", ref, "--json")
        grown = folder_bytes(home) - before
        docs, text = chunk_bytes(root, ref)
        own = grown - (empty if n == 0 else 0)  # the revision's, the new file's tables apart
        ratio = own / text if text else float("nan")
        verdict = "ok" if ratio <= 1.05 else "MISSED"
        note = f" (file: {grown:,} with its empty tables, {grown / text:.2f})" if n == 0 else ""
        print(f"{ref:<12} {docs:>6} {text:>12,} {own:>10,} {ratio:>7.2f} {verdict}{note}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--keep", action="store_true", help="keep the repository (and print it)")
    parser.add_argument("--calls", type=int, default=41, help="server calls per side")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="kenso-history-"))
    try:
        root = work / "repo"
        began = time.perf_counter()
        build(args.corpus, root, args.commits, args.docs, args.seed)
        if args.keep:
            print(f"repository kept at {root}")
        took = time.perf_counter() - began
        print(f"built {args.commits} commits over {args.docs} docs in {took:.1f} s")
        kg = str(BIN / "kenso-git")
        since = f"HEAD~{args.commits}"
        rows = []
        floor = median(root, args.runs, "git", "log", "--name-status", "-M", f"{since}..HEAD")
        rows.append(("floor: git log --name-status -M over the range", floor, None))
        changed = median(root, args.runs, kg, "changed", "--since", since, "--json")
        rows.append((f"changed --since {since} --json", changed, 0.5))
        ingest = timed(root, kg, "ingest")
        rows.append(("cold ingest (last-commit rows included)", ingest, None))
        shutil.rmtree(root / ".kenso")
        plain = timed(root, kg, "ingest")  # again, for the noise between two cold ingests
        rows.append(("cold ingest, a second time", plain, None))
        query = "deployment pipeline"
        rows.append(
            (
                "search --json (the checkout)",
                median(root, args.runs, kg, "search", query, "--json"),
                None,
            )
        )
        near = median_first(root, args.runs, kg, "search", query, "--ref", "HEAD~10", "--json")
        rows.append(("search --ref HEAD~10 --json (10 docs differ)", near, 0.3))
        far = median_first(root, args.runs, kg, "search", query, "--ref", since, "--json")
        rows.append((f"search --ref {since} --json ({args.docs} docs differ)", far, plain))
        rows.extend(cache_rows(root, kg, args.runs, args.calls, query))
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True, env=ENV)
        subprocess.run(["git", "reset", "-q", "--hard", "HEAD~5"], cwd=clone, check=True, env=ENV)
        rows.append(
            (
                "drift --json (5 commits behind)",
                median(clone, args.runs, kg, "drift", "--json"),
                None,
            )
        )
        print(f"\n{'measure':<52} {'median':>9} {'target':>8}")
        for name, value, target in rows:
            verdict = "" if target is None else ("  ok" if value <= target else "  MISSED")
            shown = "-" if target is None else f"{target:.2f} s"
            print(f"{name:<52} {value * 1000:>7.0f} ms {shown:>8}{verdict}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
