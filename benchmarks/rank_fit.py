"""Fit the ranking signals' weights and powers (`search.ranked.rank.Tuning`) on a tuning half.

    python benchmarks/rank_fit.py CORPUS [CORPUS ...] [--features DIR] [--loco]
        [--seed 7] [--plain-per-kind 100]

Each corpus is copied, its `description-stripped` questions (every described page, the
description cut from the indexed copy) and a sample of the plain kinds are asked once
through `search_docs`, and what the signals measured of every candidate
(`rank.features`), its BM25 score, cascade tier and in-set relation links are recorded
(`--features DIR` keeps them, so a second run skips the searches). The candidates are then
re-ordered offline with `rank.boost` and `rank.compressed` under any `Tuning`: the script
first checks that the defaults reproduce the recorded results exactly, then runs a
coordinate ascent over the grid below on the mean of MRR@10 and hit@1 of the stripped
questions, averaged over the corpora, accepting a step only if no corpus loses more than
0.002 MRR@10 or 0.003 hit@1 on them, or 0.003 MRR@10 on its plain kinds, against where the
ascent started (`--from defaults`, the standing defaults, unless `--from start`: from the
weights before the eighth round, a floor the defaults themselves break on some corpora,
so that a fit then depends on which corpora are given). `--loco` also
fits once per corpus with that corpus left out and reports the left-out corpus, the
check that a fit carries over to docs it never saw.

Only the tuning half is ever given to this script; the held-out half is measured by
bench_quality.py once, after the fit is chosen. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import quality_queries  # noqa: E402

from kenso_git.search.ranked import cascade  # noqa: E402
from kenso_git.search.ranked import rank  # noqa: E402
from kenso_git.search.ranked.hits import INLINE_LINK  # noqa: E402
from kenso_git.store import edges  # noqa: E402

DEPTH = 10
GRID: dict[str, tuple[float, ...]] = {
    "score_power": (0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "title": (0.0, 0.3, 0.6, 0.9, 1.2, 1.6, 2.2, 3.0),
    "heading": (0.0, 0.4, 0.8, 1.1, 1.5, 2.0, 3.0),
    "path": (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.9),
    "spread": (0.0, 0.05, 0.1, 0.2, 0.3, 0.5),
    "index_page": (0.0, 0.2, 0.4, 0.6, 1.0),
    "summary": (0.0, 0.2, 0.4, 0.6, 0.8, 1.2, 1.6),
    "title_power": (1.0, 1.5, 2.0, 3.0),
    "heading_power": (1.0, 1.5, 2.0, 3.0),
    "summary_power": (1.0, 1.5, 2.0, 3.0),
}
# the tuning the fit starts from: the weights before the eighth round of #31
START = rank.Tuning(
    title=0.9, path=0.3, index_page=0.4, summary=0.8, heading_power=2.0, summary_power=2.0,
    score_power=1.0,
)  # fmt: skip
MAX_DROP_MRR, MAX_DROP_HIT1, MAX_DROP_PLAIN = 0.002, 0.003, 0.003
# `spread` is fitted as a weight (0 = off), so the offline order reads it with the defaults
SIGNALS = rank.DEFAULT_ON | {"spread"}
DEFAULTS = rank.TUNING if "spread" in rank.DEFAULT_ON else rank.TUNING._replace(spread=0.0)

Candidate = tuple[str, float, int, int, list[Any]]  # path, score, tier, links, features
Record = dict[str, Any]  # kind, answers, got (the search's order), candidates


class Recorder:
    """Wraps `rank.features`: keeps what it measured of the last query's candidates."""

    def __init__(self) -> None:
        self.last: tuple[list[rank.Evidence], list[str], dict[str, rank.Features]] | None = None
        self.inner = rank.features

    def __call__(self, conn: Any, query: str, evidence: Any, candidates: Any, signals: Any) -> Any:
        evidence = list(evidence)
        out = self.inner(conn, query, evidence, candidates, signals)
        self.last = (evidence, list(candidates), out)
        self.conn = conn
        return out


def _candidates(recorder: Recorder) -> list[Candidate]:
    """The recorded query's candidates: each file's best chunk (earliest tier, then highest
    score, as the cascade keeps it), its in-set relation links and its features."""
    if recorder.last is None:
        return []
    evidence, paths, measured = recorder.last
    best: dict[str, tuple[int, float]] = {}
    for e in evidence:
        key = (e.tier, -e.score)
        if e.file_path not in best or key < best[e.file_path]:
            best[e.file_path] = key
    links = dict.fromkeys(paths, 0)
    for source, target in edges.within(recorder.conn, paths, INLINE_LINK):
        links[source] += 1
        links[target] += 1
    return [
        (p, -best[p][1], best[p][0], links[p], list(measured[p]) if p in measured else [])
        for p in paths
    ]


def collect(corpus: Path, label: str, seed: int, plain_per_kind: int) -> list[Record]:
    """Ask a corpus its stripped and plain questions once, recording every candidate."""
    from kenso_git.kb import KnowledgeBase

    os.environ["KENSO_QUERY_SYNC"] = "0"
    os.environ.pop(rank.ENV, None)
    work = Path(tempfile.mkdtemp(prefix="rank-fit-"))
    recorder = Recorder()
    rank.features = recorder  # type: ignore[assignment]
    out: list[Record] = []
    try:
        base = work / "plain"
        shutil.copytree(corpus, base)
        stripped = [q for q in quality_queries.build_queries(base, 0, seed) if q.kind == KIND]
        plain = [
            q
            for q in quality_queries.build_queries(base, plain_per_kind, seed)
            if q.kind in quality_queries.PLAIN
        ]
        cut = work / "cut"
        shutil.copytree(base, cut)
        quality_queries.strip_copy(cut, stripped)
        for folder, queries in ((cut, stripped), (base, plain)):
            kb = KnowledgeBase.open(folder, db=str(work / f"{folder.name}.db"))
            kb.ingest()
            for q in queries:
                recorder.last = None
                payload = kb.search_docs(q.text, limit=DEPTH)
                items = payload["results"] if isinstance(payload, dict) else payload
                got = [item["file_path"] for item in items]
                out.append(
                    {
                        "kind": q.kind,
                        "answers": sorted(q.answers),
                        "got": got,
                        "candidates": _candidates(recorder),
                    }
                )
            kb.close()
    finally:
        rank.features = recorder.inner  # type: ignore[assignment]
        shutil.rmtree(work, ignore_errors=True)
    print(f"  {label}: {len(out)} questions recorded", file=sys.stderr)
    return out


KIND = "description-stripped"


def order(record: Record, tuning: rank.Tuning) -> list[str]:
    """The candidates as the search would rank them under `tuning` (relations included)."""
    candidates = record["candidates"]
    if len(candidates) < 2:
        return list(record["got"])
    top = max(c[1] for c in candidates)
    scored = []
    for path, score, tier, links, measured in candidates:
        value = rank.compressed(score, top, tuning)
        if measured:
            value *= 1 + rank.boost(rank.Features(*measured), SIGNALS, tuning)
        scored.append((tier, value, links, path))
    scored.sort(key=lambda c: (c[0], -c[1]))
    if any(c[2] for c in scored):
        scored = [(t, v * (1 + cascade.RELATION_BOOST * n), n, p) for t, v, n, p in scored]
        scored.sort(key=lambda c: (c[0], -c[1]))
    return [c[3] for c in scored]


def metrics(records: list[Record], tuning: rank.Tuning) -> tuple[float, float]:
    """MRR@10 and hit@1 of `records` ranked under `tuning`."""
    mrr = hit1 = 0.0
    for r in records:
        ranked = order(r, tuning)[:DEPTH]
        at = next((i for i, p in enumerate(ranked) if p in r["answers"]), None)
        if at is not None:
            mrr += 1 / (at + 1)
            hit1 += at == 0
    n = max(len(records), 1)
    return mrr / n, hit1 / n


Split = dict[str, tuple[list[Record], list[Record]]]  # corpus -> (stripped, plain)


def fit(
    data: Split, origin: rank.Tuning, log: Callable[[str], None] = lambda _: None
) -> rank.Tuning:
    """Coordinate ascent from `origin` over `GRID`, no corpus falling below what `origin`
    gives it (see the module's text)."""

    def stripped(t: rank.Tuning) -> dict[str, tuple[float, float]]:
        return {c: metrics(s, t) for c, (s, _) in data.items()}

    def objective(m: dict[str, tuple[float, float]]) -> float:
        return sum(a + b for a, b in m.values()) / (2 * len(m))

    floor = stripped(origin)
    plain_floor = {c: metrics(p, origin)[0] for c, (_, p) in data.items()}

    def allowed(t: rank.Tuning, m: dict[str, tuple[float, float]]) -> bool:
        if any(
            m[c][0] < floor[c][0] - MAX_DROP_MRR or m[c][1] < floor[c][1] - MAX_DROP_HIT1
            for c in data
        ):
            return False
        return all(
            metrics(p, t)[0] >= plain_floor[c] - MAX_DROP_PLAIN for c, (_, p) in data.items()
        )

    tuning, current = origin, objective(floor)
    for _ in range(3):
        moved = False
        for name, values in GRID.items():
            best = (current, getattr(tuning, name))
            for value in values:
                trial = tuning._replace(**{name: value})
                m = stripped(trial)
                if objective(m) > best[0] + 1e-4 and allowed(trial, m):
                    best = (objective(m), value)
            if best[1] != getattr(tuning, name):
                tuning, current, moved = tuning._replace(**{name: best[1]}), best[0], True
                log(f"    {name} -> {best[1]} (objective {current:.4f})")
        if not moved:
            break
    return tuning


def _row(label: str, data: Split, corpus: str, tuning: rank.Tuning) -> str:
    s, p = data[corpus]
    mrr, hit1 = metrics(s, tuning)
    plain = metrics(p, tuning)[0]
    return f"  {label:10} {corpus:16} stripped {mrr:.3f} / {hit1:.3f}   plain {plain:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpora", nargs="+", type=Path, help="the tuning half's corpus folders")
    ap.add_argument("--features", type=Path, help="keep (and reuse) the recorded candidates here")
    ap.add_argument("--loco", action="store_true", help="also fit leaving each corpus out")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--plain-per-kind", type=int, default=100)
    ap.add_argument(
        "--from",
        dest="origin",
        choices=("defaults", "start"),
        default="defaults",
        help="where the ascent starts and what no corpus may fall below: the standing "
        "defaults (a new fit must beat them everywhere) or START, the weights before the "
        "eighth round (how that round's fit was made)",
    )
    args = ap.parse_args()
    origin = DEFAULTS if args.origin == "defaults" else START
    data: Split = {}
    for corpus in args.corpora:
        label = corpus.resolve().name if corpus.name != "docs" else corpus.resolve().parent.name
        cache = args.features / f"{label}.json" if args.features else None
        if cache is not None and cache.is_file():
            records = json.loads(cache.read_text())
        else:
            records = collect(corpus, label, args.seed, args.plain_per_kind)
            if cache is not None:
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_text(json.dumps(records))
        same = sum(order(r, DEFAULTS)[:DEPTH] == r["got"][:DEPTH] for r in records)
        print(f"{label}: the defaults reproduce {same} of {len(records)} recorded searches")
        data[label] = (
            [r for r in records if r["kind"] == KIND],
            [r for r in records if r["kind"] != KIND],
        )
    started = time.perf_counter()
    print("\nfit on every corpus given:")
    fitted = fit(data, origin, print)
    print(f"  {fitted}")
    for corpus in data:
        print(_row("start", data, corpus, START))
        print(_row("fitted", data, corpus, fitted))
        print(_row("defaults", data, corpus, DEFAULTS))
    if args.loco and len(data) > 2:
        print("\nleave one corpus out (fit on the others, measured on it):")
        for out in data:
            held = fit({c: v for c, v in data.items() if c != out}, origin)
            print(_row("start", data, out, START))
            print(_row("fitted", data, out, held) + f"   {held}")
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
