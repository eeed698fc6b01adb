"""Search quality against kenso 2.0.0: known-item queries drawn from real docs, both tools.

    python benchmarks/bench_quality.py CORPUS [CORPUS ...] [--held-out CORPUS ...]
        [--kenso-venv DIR] [--per-kind 150] [--kenso-cache DIR] [--ablate]
        [--configs SETTING,...] [--kinds KIND,...] [--strip page|everywhere] [--dump DIR]
        [--json FILE]

Each corpus folder is copied to a temporary folder, queries are drawn from its pages
(quality_queries.py: the plain kinds `title`, `description`, `heading`, `sentence`,
`paraphrase`, asked of the corpus as it is, and the stripped kinds, asked of a copy per
kind from which the text each query was made from is cut out of its page, as a user's
question does not quote the page), and each copy is indexed and searched by kenso-git
through `search_docs` (= `kenso-git search --json`) and through the agent `search`
tool's ranked first page (= `kenso-git search QUERY --format json`), and by kenso 2.0.0
(quality_tools.py). With `--strip everywhere` a stripped kind's copy loses that field on
every page that has it, not only on the pages its queries came from (then no competitor
keeps a description the answer lost).

Per corpus and kind it prints MRR@10, hit@1 and hit@5 of the three; the stripped kinds
pooled are the headline. Then a summary of every corpus (tuning half first, held-out
last; `under floor N`: N questions ask for pages the stripped copy left under kenso's
50-character floor, which no index holds: a section page whose only text was the
description; they stay in every score), and kenso's own 36-query eval measured the same
way. Queries are sampled with a
fixed seed. For the tuning corpora only it lists the queries kenso ranks higher, and
`--dump DIR` writes each query's results there (JSON lines) to read misses by; held-out
corpora are reported as numbers only. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# the benchmark folder is not a package
import quality_queries  # noqa: E402
from bench_core import ensure_kenso  # noqa: E402
from quality_queries import KINDS  # noqa: E402
from quality_queries import PLAIN  # noqa: E402
from quality_queries import STRIPPED  # noqa: E402
from quality_queries import Query  # noqa: E402
from quality_queries import strip_copy  # noqa: E402
from quality_tools import DEPTH  # noqa: E402
from quality_tools import SURFACES  # noqa: E402
from quality_tools import Runs  # noqa: E402
from quality_tools import kenso  # noqa: E402
from quality_tools import kenso_eval  # noqa: E402
from quality_tools import ours  # noqa: E402

GROUPS = {"plain (all)": PLAIN, "STRIPPED (all)": STRIPPED}
Scores = tuple[int, float, float, float]  # n, MRR@10, hit@1, hit@5
Triple = tuple[str, str, set[str]]  # (kind, query, the documents that answer it)


@dataclass
class Measured:
    """One corpus: its queries and every run's results, aligned with the queries."""

    name: str
    half: str
    queries: list[Query]
    runs: Runs
    # queries whose every answer the stripped copy left under kenso's 50-character floor:
    # in neither index (a diagnostic; they stay in every score)
    floor: frozenset[int] = frozenset()


def short(name: str) -> str:
    """A corpus's label: its folder's name, or its parent's for `docs`, `content`, `en`."""
    parts = [p for p in Path(name).parts if p not in ("docs", "content", "en", "/")]
    return parts[-1] if parts else Path(name).name


def rank_of(results: list[str], answers: frozenset[str]) -> int | None:
    """The rank of the first answer among the distinct documents of `results`, or None."""
    documents = list(dict.fromkeys(results))[:DEPTH]
    return next((i for i, path in enumerate(documents, 1) if path in answers), None)


def scores(m: Measured, run: str, kinds: tuple[str, ...]) -> Scores:
    ranks = [
        rank_of(results, q.answers)
        for results, q in zip(m.runs[run], m.queries, strict=True)
        if q.kind in kinds
    ]
    if not ranks:
        return 0, 0.0, 0.0, 0.0
    mrr = statistics.fmean(1 / r if r else 0.0 for r in ranks)
    hit1 = sum(r == 1 for r in ranks) / len(ranks)
    hit5 = sum(r is not None and r <= 5 for r in ranks) / len(ranks)
    return len(ranks), mrr, hit1, hit5


def empty_pages(m: Measured, kinds: tuple[str, ...]) -> int:
    """Queries of `kinds` whose `search` tool page is empty while `search_docs` has hits
    (#28's target: none)."""
    return sum(
        1
        for tool, docs, q in zip(m.runs["search"], m.runs["search_docs"], m.queries, strict=True)
        if q.kind in kinds and not tool and docs
    )


def under_floor_note(m: Measured, kinds: tuple[str, ...]) -> str:
    """`, under floor N` when N of the queries of `kinds` ask for pages the stripped copy
    left under kenso's 50-character floor (no tool can answer them)."""
    n = sum(1 for i, q in enumerate(m.queries) if i in m.floor and q.kind in kinds)
    return f", under floor {n}" if n else ""


def measure(source: Path, half: str, number: int, work: Path, args: argparse.Namespace) -> Measured:
    """Index every copy of one corpus with both tools and ask each its queries."""
    base = work / f"corpus{number}"
    shutil.copytree(source.resolve(), base)
    kinds = tuple(k for k in KINDS if k in args.kinds)
    drawn = quality_queries.build_queries(base, args.per_kind, args.seed)
    queries = [q for q in drawn if q.kind in kinds]
    runs: Runs = {}
    floor: set[int] = set()
    groups = [("plain", [k for k in kinds if k in PLAIN]), *((k, [k]) for k in STRIPPED)]
    for label, group in groups:
        rows = [i for i, q in enumerate(queries) if q.kind in group]
        if not rows:
            continue
        corpus = base
        if label != "plain":
            corpus = work / f"corpus{number}-{label}"
            shutil.copytree(base, corpus)
            cut = [queries[i] for i in rows]
            if args.strip == "everywhere":
                cut = quality_queries.every_cut(base, label)
            strip_copy(corpus, cut)
            floor.update(i for i in rows if quality_queries.under_floor(corpus, queries[i].answers))
        started = time.perf_counter()
        texts = [queries[i].text for i in rows]
        got = ours(corpus, work / f"ours{number}-{label}.db", texts, args.configs)
        db = work / f"kenso{number}-{label}.db"
        got["kenso"] = kenso(args.kenso_python, corpus, db, texts, args.kenso_cache)
        for name, results in got.items():
            runs.setdefault(name, [[] for _ in queries])
            for i, result in zip(rows, results, strict=True):
                runs[name][i] = result
        took = time.perf_counter() - started
        print(f"  {source.name} {label}: {len(rows)} queries, {took:.0f} s", file=sys.stderr)
        if corpus != base:
            shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    return Measured(str(source), half, queries, runs, frozenset(floor))


def _cells(m: Measured, kinds: tuple[str, ...]) -> str:
    cells = ""
    for run in SURFACES:
        _, mrr, hit1, hit5 = scores(m, run, kinds)
        cells += f"   {mrr:.3f} {hit1:.3f} {hit5:.3f}"
    return cells


def report(m: Measured) -> None:
    print(f"\n{m.name} ({m.half}): {len(m.queries)} queries; cells MRR@10 hit@1 hit@5")
    head = "".join(f"   {name:^17}" for name in ("search_docs", "search tool", "kenso 2.0.0"))
    print(f"{'kind':24} {'n':>4}{head}")
    rows = [*((k, (k,)) for k in KINDS), *GROUPS.items()]
    for label, kinds in rows:
        n = scores(m, "kenso", kinds)[0]
        if n:
            print(f"{label:24} {n:>4}{_cells(m, kinds)}")
    if m.half != "tuning":
        return  # a held-out corpus's misses are not read
    worse = []
    for i, q in enumerate(m.queries):
        ours_rank, theirs = (rank_of(m.runs[r][i], q.answers) for r in ("search_docs", "kenso"))
        if q.kind in STRIPPED and (theirs or DEPTH + 1) < (ours_rank or DEPTH + 1):
            ranks = f"kenso-git {ours_rank or '-'}, kenso {theirs}"
            worse.append(f"  [{q.kind}] {q.text[:80]!r}: {ranks}")
    print(f"kenso ranks the answer higher for {len(worse)} stripped queries:")
    print("\n".join(worse[:12]))


def ablation(m: Measured, configs: list[str]) -> None:
    print(f"\nablation on {m.name} (KENSO_GIT_RANK: MRR@10 / hit@1, plain kinds | stripped kinds)")
    for config in ["", *configs]:
        run = f"rank={config}" if config else "search_docs"
        _, pm, p1, _ = scores(m, run, PLAIN)
        _, sm, s1, _ = scores(m, run, STRIPPED)
        print(f"  {config or 'default':16} {pm:.3f} / {p1:.3f} | {sm:.3f} / {s1:.3f}")


def summary(measured: list[Measured]) -> None:
    """The headline: per corpus, the stripped kinds pooled and each stripped kind."""
    for label, kinds in (("STRIPPED kinds pooled (headline)", STRIPPED), ("plain kinds", PLAIN)):
        print(f"\nsummary, {label}: MRR@10 and hit@1, kenso-git search_docs vs kenso (diff),")
        print("hit@5 of both, and the search tool's MRR@10 / hit@1 and its empty pages")
        for m in measured:
            n, am, a1, a5 = scores(m, "search_docs", kinds)
            _, bm, b1, b5 = scores(m, "kenso", kinds)
            _, tm, t1, _ = scores(m, "search", kinds)
            if not n:
                continue
            print(
                f"  {short(m.name):14} {m.half:8} {n:4}  MRR {am:.3f}/{bm:.3f} ({am - bm:+.3f})"
                f"  hit@1 {a1:.3f}/{b1:.3f} ({a1 - b1:+.3f})  hit@5 {a5:.3f}/{b5:.3f}"
                f"  tool {tm:.3f}/{t1:.3f}, empty {empty_pages(m, kinds)}"
                f"{under_floor_note(m, kinds)}"
            )
    print("\nper stripped kind: MRR@10 search_docs / kenso (diff), hit@1 diff")
    for m in measured:
        for kind in STRIPPED:
            n, am, a1, _ = scores(m, "search_docs", (kind,))
            _, bm, b1, _ = scores(m, "kenso", (kind,))
            if n:
                name = short(m.name)
                print(
                    f"  {name:14} {m.half:8} {kind:24} {n:4}  {am:.3f} / {bm:.3f} "
                    f"({am - bm:+.3f})  hit@1 {a1 - b1:+.3f}"
                )


def dump(directory: Path, m: Measured) -> None:
    """Each query of a tuning corpus with every run's results (to read misses by)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / f"{short(m.name)}.jsonl").open("w", encoding="utf-8") as out:
        for i, q in enumerate(m.queries):
            row: dict[str, object] = {"kind": q.kind, "query": q.text}
            row["answers"] = sorted(q.answers)
            for run, results in m.runs.items():
                row[run] = list(dict.fromkeys(results[i]))[:DEPTH]
                row[f"{run}_rank"] = rank_of(results[i], q.answers)
            out.write(json.dumps(row) + "\n")


def numbers(measured: list[Measured]) -> dict[str, object]:
    out: dict[str, object] = {}
    for m in measured:
        kinds = [*((k, (k,)) for k in KINDS), *GROUPS.items()]
        out[m.name] = {
            "half": m.half,
            "under_floor": len(m.floor),
            "kinds": {
                label: {run: scores(m, run, ks) for run in m.runs}
                for label, ks in kinds
                if scores(m, "kenso", ks)[0]
            },
        }
    return out


def build_queries(corpus: Path, per_kind: int, seed: int) -> list[Triple]:
    """The plain kinds' queries as (kind, query, answers), asked of the corpus as it is
    (bench_vectors.py, bench_labels.py and bench_cjk.py read these)."""
    drawn = quality_queries.build_queries(corpus, per_kind, seed)
    return [(q.kind, q.text, set(q.answers)) for q in drawn if q.kind in PLAIN]


def kind_rows(
    triples: list[Triple], runs: dict[str, list[list[str]]], kinds: tuple[str, ...] = PLAIN
) -> list[str]:
    """One line per kind of query (and "all"): its count and each run's MRR@10 / hit@1."""
    lines = [f"{'kind':12} {'n':>4}" + "".join(f"   {name:^15}" for name in runs)]
    for kind in (*kinds, "all"):
        rows = [i for i, t in enumerate(triples) if kind in ("all", t[0])]
        if not rows:
            continue
        cells = ""
        for results in runs.values():
            ranks = [rank_of(results[i], frozenset(triples[i][2])) for i in rows]
            hit1 = sum(r == 1 for r in ranks) / len(ranks)
            mrr = statistics.fmean(1 / r if r else 0.0 for r in ranks)
            cells += f"   {mrr:.3f} / {hit1:.3f}"
        lines.append(f"{kind:12} {len(rows):>4}{cells}")
    return lines


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpora", nargs="+", type=Path, help="the tuning corpora")
    ap.add_argument("--held-out", type=Path, nargs="*", default=[], help="corpora never tuned on")
    ap.add_argument("--kenso-venv", type=Path, default=None)
    ap.add_argument(
        "--per-kind",
        type=int,
        default=150,
        help="queries per kind per corpus (0: every one the corpus gives)",
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds to ask")
    ap.add_argument(
        "--strip",
        choices=("page", "everywhere"),
        default="page",
        help="cut a stripped kind's field from the pages its queries came from (default), "
        "or from every page that has it",
    )
    ap.add_argument("--ablate", action="store_true", help="also run each signal switched off")
    ap.add_argument(
        "--configs",
        dest="extra_configs",
        default="",
        help="comma-separated KENSO_GIT_RANK settings to run besides the defaults "
        "(`-abbrev` = the defaults without abbrev; `;` between settings of several signals)",
    )
    ap.add_argument("--kenso-cache", type=Path, default=None, help="keep kenso's results here")
    ap.add_argument("--dump", type=Path, default=None, help="tuning corpora's results, JSONL")
    ap.add_argument("--json", type=Path, default=None, help="write every score here")
    ap.add_argument("--no-kenso-eval", action="store_true", help="skip kenso's 36-query eval")
    args = ap.parse_args()
    args.kinds = set(args.kinds.split(","))
    unknown = args.kinds - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    args.configs = []
    if args.ablate:
        from kenso_git.search.ranked.rank import DEFAULT_ON
        from kenso_git.search.ranked.rank import SIGNALS

        # every default signal switched off, every signal off by default switched on
        args.configs = ["off", *(f"-{s}" if s in DEFAULT_ON else f"+{s}" for s in SIGNALS)]
    extra = [c.replace(";", ",") for c in args.extra_configs.split(",") if c]
    args.configs += [c for c in extra if c not in args.configs]
    return args


def main() -> None:
    args = _arguments()
    work = Path(tempfile.mkdtemp(prefix="kenso-quality-"))
    measured: list[Measured] = []
    try:
        args.kenso_python = ensure_kenso(args.kenso_venv, work)
        halves = [*((c, "tuning") for c in args.corpora), *((c, "held-out") for c in args.held_out)]
        for number, (source, half) in enumerate(halves):
            m = measure(source, half, number, work, args)
            measured.append(m)
            report(m)
            if args.configs:
                ablation(m, args.configs)
            if args.dump and half == "tuning":
                dump(args.dump, m)
        summary(measured)
        if not args.no_kenso_eval:
            print()
            print("\n".join(kenso_eval(args.kenso_python, work)))
        if args.json:
            args.json.write_text(json.dumps(numbers(measured), indent=1), encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
