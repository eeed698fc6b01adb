"""The searches bench_quality.py compares: kenso-git's two surfaces and kenso 2.0.0.

- `search_docs`: what `kenso-git search --json` prints and the `search_docs` MCP tool
  answers (`KnowledgeBase.search_docs`), 10 results;
- `search`: the agent surface's `search` tool, ranked, first page of 10 (what
  `kenso-git search QUERY --format json` prints; `KnowledgeBase.agent_search`); a query
  its language refuses counts as no result;
- `kenso`: kenso 2.0.0's `Backend.search`, 10 results, run in its own venv.

All in-process (a CLI process per query would measure process start, not ranking), with
the query-time sync off: the corpus does not change while it is searched.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

DEPTH = 10
SURFACES = ("search_docs", "search", "kenso")
Runs = dict[str, list[list[str]]]  # run name -> per query, the result paths in rank order

KENSO_QUERIES = """
import asyncio, json, sys
from kenso.backend import Backend
from kenso.config import KensoConfig
from kenso.ingest import ingest_path
cfg = KensoConfig(database_url=sys.argv[1])
asyncio.run(ingest_path(cfg, sys.argv[2]))
queries = json.loads(open(sys.argv[3], encoding="utf-8").read())
async def main():
    b = Backend(cfg)
    await b.startup()
    out = []
    for q in queries:
        out.append([hit["file_path"] for hit in await b.search(q, limit=int(sys.argv[4]))])
    await b.shutdown()
    print(json.dumps(out))
asyncio.run(main())
"""


def ours(
    corpus: Path, db: Path, queries: list[str], configs: list[str], depth: int = DEPTH
) -> Runs:
    """kenso-git's results on both surfaces, and `search_docs` once per extra
    `KENSO_GIT_RANK` setting in `configs` (run `rank=SETTING`), from one index."""
    from kenso_git.errors import QueryError
    from kenso_git.errors import UsageError
    from kenso_git.kb import KnowledgeBase
    from kenso_git.search.lang.agent import SearchRequest

    os.environ["KENSO_QUERY_SYNC"] = "0"
    kb = KnowledgeBase.open(corpus, db=str(db))
    kb.ingest()

    def docs(query: str) -> list[str]:
        try:
            payload = kb.search_docs(query, limit=depth)
        except QueryError as exc:  # over the query caps: no answer, counted as a miss
            print(f"  refused ({exc}): {query[:60]}...", file=sys.stderr)
            return []
        items = payload["results"] if isinstance(payload, dict) else payload
        return [item["file_path"] for item in items]

    def tool(query: str) -> list[str]:
        try:
            page = kb.agent_search(SearchRequest(query, page_size=depth))
        except UsageError:  # the query language refused it: the caller sees no result
            return []
        return [hit["path"] for hit in page["results"]]

    out: Runs = {}
    previous = os.environ.pop("KENSO_GIT_RANK", None)
    try:
        out["search_docs"] = [docs(q) for q in queries]
        out["search"] = [tool(q) for q in queries]
        for config in configs:
            os.environ["KENSO_GIT_RANK"] = config
            out[f"rank={config}"] = [docs(q) for q in queries]
    finally:
        os.environ.pop("KENSO_GIT_RANK", None)
        if previous is not None:
            os.environ["KENSO_GIT_RANK"] = previous
        kb.close()
    return out


def _cache_key(corpus: Path, queries: list[str], depth: int) -> str:
    """What kenso's answers depend on: every file's path and bytes, the queries, the depth."""
    digest = hashlib.sha256(json.dumps([queries, depth]).encode())
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        digest.update(path.relative_to(corpus).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:24]


def kenso(
    python: Path,
    corpus: Path,
    db: Path,
    queries: list[str],
    cache: Path | None,
    depth: int = DEPTH,
) -> list[list[str]]:
    """kenso 2.0.0's results; with `cache`, kept there per corpus content and query list
    (kenso does not change, and re-running it is most of an iteration's time)."""
    cached = cache / f"kenso-{_cache_key(corpus, queries, depth)}.json" if cache else None
    if cached is not None and cached.is_file():
        hit: list[list[str]] = json.loads(cached.read_text(encoding="utf-8"))
        return hit
    query_file = db.with_suffix(".queries.json")
    query_file.write_text(json.dumps(queries), encoding="utf-8")
    proc = subprocess.run(
        [str(python), "-c", KENSO_QUERIES, str(db), str(corpus), str(query_file), str(depth)],
        capture_output=True,
        text=True,
        check=True,
    )
    results: list[list[str]] = json.loads(proc.stdout)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(results), encoding="utf-8")
    return results


EVAL_DATA = Path(__file__).resolve().parents[1] / "tests" / "search" / "data" / "kenso_eval.json"
EVAL_DEPTH = 5


def kenso_eval(python: Path, work: Path) -> list[str]:
    """kenso 2.0.0's own 36-query eval (its synthetic corpus and queries; the same data as
    tests/search/test_rank_kenso_eval.py), scored as its harness scores it: a result is
    relevant when an expected path is a substring of it, first five results. One line
    per surface: Hit@5 and MRR."""
    data = json.loads(EVAL_DATA.read_text(encoding="utf-8"))
    root = work / "kenso-eval"
    for item in data["docs"]:
        target = root / "docs" / item["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(item["content"], encoding="utf-8")
    queries = [case["query"] for case in data["cases"]]
    runs = ours(root / "docs", work / "kenso-eval-ours.db", queries, [], depth=EVAL_DEPTH)
    runs["kenso"] = kenso(
        python, root / "docs", work / "kenso-eval-kenso.db", queries, None, depth=EVAL_DEPTH
    )
    lines = [f"kenso's 36-query eval ({len(queries)} queries; Hit@5 / MRR, substring match)"]
    for name in SURFACES:
        ranks = [
            _substring_rank(results, case["expected_paths"])
            for results, case in zip(runs[name], data["cases"], strict=True)
        ]
        hit5 = sum(r is not None for r in ranks) / len(ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        misses = [c["id"] for c, r in zip(data["cases"], ranks, strict=True) if r != 1]
        lines.append(f"  {name:12} {hit5:.3f} / {mrr:.3f}   not first: {misses or 'none'}")
    return lines


def _substring_rank(results: list[str], expected: list[str]) -> int | None:
    wanted = [e.lower() for e in expected]
    for rank, path in enumerate(list(dict.fromkeys(results))[:EVAL_DEPTH], 1):
        if any(e in path.lower() for e in wanted):
            return rank
    return None
