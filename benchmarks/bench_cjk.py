"""The CJK trigram side index: quality on a CJK corpus, and its cost on a corpus without CJK.

    python benchmarks/bench_cjk.py CJK_CORPUS [--kenso-venv DIR] [--per-kind 150]
        [--speed CORPUS] [--rounds 3]

Known-item queries as bench_quality.py makes them, with rules for text without spaces
between words: `title` (frontmatter `title`, else the first `# ` heading), `heading` (an
H2-H4 heading of 2+ characters), `sentence` (10 characters from the middle of a prose
paragraph) and `paraphrase` (two 3-character pieces from different places of one
paragraph, joined by a space: a few key terms typed from memory). Each runs against kenso
2.0.0, kenso-git with `KENSO_CJK=off` and kenso-git with `KENSO_CJK=auto`.

`--speed` times, interleaved round by round, a cold ingest of CORPUS with the tier off and
on (the side table stays empty there), then the in-process search p50 of its titles on
both indexes, alternating query by query.
Not run in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_core import ensure_kenso  # noqa: E402 - the benchmark folder is not a package
from bench_quality import kind_rows  # noqa: E402
from quality_queries import plain as _plain  # noqa: E402
from quality_tools import DEPTH  # noqa: E402
from quality_tools import kenso  # noqa: E402

KINDS = ("title", "heading", "sentence", "paraphrase")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
Triple = tuple[str, str, set[str]]
_FRONTMATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", re.S)
_HEADING = re.compile(r"^(#{1,4})[ \t]+(.+?)[ \t#]*$", re.M)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _field(frontmatter: str, key: str) -> str | None:
    match = re.search(rf"^{key}:[ \t]*(.+)$", frontmatter, re.M)
    if match is None:
        return None
    value = match.group(1).strip().strip("\"'")
    return value if value and value not in ("|", ">", ">-", "|-") else None


def _queries_of(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    match = _FRONTMATTER.match(text)
    front, body = (match.group(1), text[match.end() :]) if match else ("", text)
    body = _FENCE.sub("", body)
    headings = [(len(m.group(1)), _plain(m.group(2))) for m in _HEADING.finditer(body)]
    title = _field(front, "title") or next((h for level, h in headings if level == 1), None)
    if title and _CJK.search(title):
        out["title"].append(_plain(title))
    out["heading"].extend(h for lv, h in headings if lv >= 2 and len(h) >= 2 and _CJK.search(h))
    for paragraph in re.split(r"\n\s*\n", body):
        line = _plain(paragraph.strip()).replace("\n", "")
        if len(line) < 30 or line[0] in "#|>-*+<!0123456789[" or len(_CJK.findall(line)) < 20:
            continue
        rng = random.Random(line)
        start = rng.randrange(5, len(line) - 20)
        out["sentence"].append(line[start : start + 10].strip())
        cut = len(line) // 2
        a, b = rng.randrange(0, cut - 3), rng.randrange(cut, len(line) - 3)
        pieces = (line[a : a + 3].strip(), line[b : b + 3].strip())
        if all(_CJK.search(p) for p in pieces):
            out["paraphrase"].append(" ".join(pieces))
    return out


def build_queries(corpus: Path, per_kind: int, seed: int) -> list[Triple]:
    """A fixed-seed sample of up to `per_kind` queries of each kind (known items only)."""
    found: dict[str, dict[str, set[str]]] = {kind: defaultdict(set) for kind in KINDS}
    for path in sorted(corpus.rglob("*.md")):
        rel = path.relative_to(corpus).as_posix()
        for kind, queries in _queries_of(
            path.read_text(encoding="utf-8", errors="replace")
        ).items():
            for query in queries:
                found[kind][query].add(rel)
    rng = random.Random(seed)
    out: list[Triple] = []
    for kind in KINDS:
        pool = sorted((q, a) for q, a in found[kind].items() if len(a) <= 3)
        out.extend((kind, q, a) for q, a in rng.sample(pool, min(per_kind, len(pool))))
    return out


def ours(corpus: Path, db: Path, queries: list[str], mode: str) -> list[list[str]]:
    from kenso_git.kb import KnowledgeBase

    os.environ["KENSO_QUERY_SYNC"] = "0"
    os.environ["KENSO_CJK"] = mode
    kb = KnowledgeBase.open(corpus, db=str(db))
    started = time.perf_counter()
    kb.ingest()
    ingest_s = time.perf_counter() - started
    out, took = [], []
    for query in queries:
        started = time.perf_counter()
        out.append([hit.file_path for hit in kb.search(query, limit=DEPTH).hits])
        took.append((time.perf_counter() - started) * 1000)
    took.sort()
    print(
        f"cjk {mode}: cold ingest {ingest_s:.3f} s, search p50 {took[len(took) // 2]:.2f} ms, "
        f"p95 {took[int(len(took) * 0.95)]:.2f} ms"
    )
    return out


def quality(source: Path, kenso_venv: Path | None, per_kind: int, seed: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="kenso-cjk-"))
    try:
        kenso_py = ensure_kenso(kenso_venv, work)
        corpus = work / "corpus"
        shutil.copytree(source.resolve(), corpus)
        triples = build_queries(corpus, per_kind, seed)
        queries = [q for _, q, _ in triples]
        runs = {
            "kenso 2.0.0": kenso(kenso_py, corpus, work / "kenso.db", queries, None),
            "cjk off": ours(corpus, work / "off.db", queries, "off"),
            "cjk auto": ours(corpus, work / "auto.db", queries, "auto"),
        }
        print(f"\n{source}: {len(triples)} queries; MRR@10 / hit@1 per kind")
        print("\n".join(kind_rows(triples, runs, KINDS)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def speed(source: Path, rounds: int) -> None:
    from kenso_git.kb import KnowledgeBase

    os.environ["KENSO_QUERY_SYNC"] = "0"
    work = Path(tempfile.mkdtemp(prefix="kenso-cjk-speed-"))
    corpus = work / "corpus"
    shutil.copytree(source.resolve(), corpus)
    titles = [q for kind, q, _ in _titles(corpus) if kind == "title"][:200]
    ingest: dict[str, list[float]] = {"off": [], "auto": []}
    search: dict[str, list[float]] = {"off": [], "auto": []}
    try:
        for number in range(rounds):
            for mode in ("off", "auto") if number % 2 == 0 else ("auto", "off"):
                os.environ["KENSO_CJK"] = mode
                db = work / f"{mode}.db"
                db.unlink(missing_ok=True)
                started = time.perf_counter()
                KnowledgeBase.open(corpus, db=str(db)).ingest()
                ingest[mode].append(time.perf_counter() - started)
        # search: both indexes open in one process, the modes alternating query by query
        # (a run of one mode after the other measured the machine's load, not the tier)
        kbs = {}
        for mode in ("off", "auto"):
            os.environ["KENSO_CJK"] = mode
            kbs[mode] = KnowledgeBase.open(corpus, db=str(work / f"{mode}.db"))
        for number in range(rounds):
            for query in titles:
                for mode in ("off", "auto") if number % 2 == 0 else ("auto", "off"):
                    started = time.perf_counter()
                    kbs[mode].search(query, limit=5)
                    search[mode].append((time.perf_counter() - started) * 1000)
        for kb in kbs.values():
            kb.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{source}: {rounds} rounds, {len(titles)} title queries each")
    for mode in ("off", "auto"):
        print(
            f"  cjk {mode:4}  cold ingest median {statistics.median(ingest[mode]):.3f} s   "
            f"search p50 {statistics.median(search[mode]):.2f} ms"
        )
    ratio = statistics.median(ingest["auto"]) / statistics.median(ingest["off"])
    p50 = statistics.median(search["auto"]) / statistics.median(search["off"])
    print(f"  ratios auto / off: ingest {ratio:.3f}, search p50 {p50:.3f}")


def _titles(corpus: Path) -> list[Triple]:
    from bench_quality import build_queries as english_queries

    return english_queries(corpus, 200, 7)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpus", type=Path, nargs="?")
    ap.add_argument("--kenso-venv", type=Path, default=None)
    ap.add_argument("--per-kind", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--speed", type=Path, default=None, help="a corpus without CJK to time")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if args.corpus is not None:
        quality(args.corpus, args.kenso_venv, args.per_kind, args.seed)
    if args.speed is not None:
        speed(args.speed, args.rounds)


if __name__ == "__main__":
    main()
