"""Would static vectors (`wordllama`) re-rank kenso-git's hits better? An offline trial.

    python benchmarks/bench_vectors.py CORPUS [CORPUS ...] [--per-kind 150]
        [--weights 0 0.25 0.5 1 2] [--candidates 20]
    python benchmarks/bench_vectors.py --speed CORPUS [--rounds 2]

For bench_quality.py's queries, kenso-git's first `--candidates` hits are re-ordered by
`score x (1 + w x cosine)` within their cascade stage (AND before NEAR before OR), the
cosine taken between the query's embedding and the embedding of the hit's title and best
chunk (wordllama's 256-dimension model from its wheel, loaded without network). `w = 0`
is kenso-git's own order. Also tried: vector-only candidates for queries without hits
(the best chunks by cosine over the whole corpus). Prints MRR@10 / hit@1 per kind and the
cost: model import and load, embedding every chunk, embedding one query. `--speed` times
the shipped tier (`KENSO_VECTORS=0` against `1`, interleaved): cold ingest, search p50,
and the model's import and load in a fresh process (what a server start adds). Needs
`pip install wordllama`. Not run in CI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_quality import build_queries  # noqa: E402
from bench_quality import kind_rows  # noqa: E402
from quality_tools import DEPTH  # noqa: E402 - the benchmark folder is not a package

_TIER = {"AND": 0, "NEAR": 1, "OR": 2}


def load_model() -> object:
    """wordllama's bundled model, never downloading anything."""
    import wordllama
    from wordllama import WordLlama

    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


def trial(source: Path, per_kind: int, weights: list[float], candidates: int) -> None:
    import numpy as np

    from kenso_git.kb import KnowledgeBase

    started = time.perf_counter()
    model = load_model()
    load_s = time.perf_counter() - started
    work = Path(tempfile.mkdtemp(prefix="kenso-vec-"))
    try:
        corpus = work / "corpus"
        shutil.copytree(source.resolve(), corpus)
        triples = build_queries(corpus, per_kind, 7)
        os.environ["KENSO_QUERY_SYNC"] = "0"
        kb = KnowledgeBase.open(corpus, db=str(work / "db"))
        kb.ingest()
        conn = sqlite3.connect(work / "db")
        chunks = conn.execute(
            "SELECT file_path, coalesce(title, '') || ' ' || content FROM chunk_rows"
        ).fetchall()
        started = time.perf_counter()
        matrix = model.embed([text[:2000] for _, text in chunks], norm=True)  # type: ignore[attr-defined]
        embed_s = time.perf_counter() - started
        paths = [p for p, _ in chunks]
        runs: dict[str, list[list[str]]] = {f"w={w}": [] for w in weights}
        runs["w=1+vector-only"] = []
        query_s = 0.0
        for _, query, _ in triples:
            hits = kb.search(query, limit=candidates).hits
            started = time.perf_counter()
            q = model.embed([query], norm=True)[0]  # type: ignore[attr-defined]
            query_s += time.perf_counter() - started
            texts = [f"{h.title} {h.content}"[:2000] for h in hits]
            cos = model.embed(texts, norm=True) @ q if texts else np.zeros(0)  # type: ignore[attr-defined]
            for w in weights:
                order = sorted(
                    range(len(hits)),
                    key=lambda i, w=w: (
                        _TIER.get(hits[i].cascade_stage or "", 3),
                        -hits[i].score * (1 + w * float(cos[i])),
                    ),
                )
                runs[f"w={w}"].append([hits[i].file_path for i in order][:DEPTH])
            ranked = runs[f"w={1.0 if 1.0 in weights else weights[-1]}"][-1]
            if not hits:  # vector-only candidates: the chunks nearest the query
                best = np.argsort(-(matrix @ q))[: DEPTH * 3]
                ranked = list(dict.fromkeys(paths[i] for i in best))[:DEPTH]
            runs["w=1+vector-only"].append(ranked)
        print(
            f"\n{source}: {len(triples)} queries, {len(chunks)} chunks; model load {load_s:.2f} s, "
            f"embed all chunks {embed_s:.2f} s, per query {query_s / len(triples) * 1000:.2f} ms"
        )
        print("\n".join(kind_rows(triples, runs)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def speed(source: Path, rounds: int) -> None:
    """The product tier's cost: cold ingest and search p50 with `vectors` off and on."""
    import statistics
    import subprocess

    from kenso_git.kb import KnowledgeBase

    os.environ["KENSO_QUERY_SYNC"] = "0"
    work = Path(tempfile.mkdtemp(prefix="kenso-vec-speed-"))
    corpus = work / "corpus"
    shutil.copytree(source.resolve(), corpus)
    titles = [q for kind, q, _ in build_queries(corpus, 200, 7) if kind == "title"]
    ingest: dict[str, list[float]] = {"0": [], "1": []}
    search: dict[str, list[float]] = {"0": [], "1": []}
    try:
        for number in range(rounds):
            for mode in ("0", "1") if number % 2 == 0 else ("1", "0"):
                os.environ["KENSO_VECTORS"] = mode
                kb = KnowledgeBase.open(corpus, db=str(work / f"{mode}{number}.db"))
                started = time.perf_counter()
                kb.ingest()
                ingest[mode].append(time.perf_counter() - started)
                for query in titles:
                    started = time.perf_counter()
                    kb.search(query, limit=5)
                    search[mode].append((time.perf_counter() - started) * 1000)
                kb.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = "import time; t = time.perf_counter(); from kenso_git.text.embed import embed; "
    load += "embed(['x']); print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", load], capture_output=True, text=True, check=True)
    print(f"\n{source}: {rounds} rounds, {len(titles)} title queries each")
    for mode, name in (("0", "off"), ("1", "on")):
        print(
            f"  vectors {name:3}  cold ingest median {statistics.median(ingest[mode]):.3f} s   "
            f"search p50 {statistics.median(search[mode]):.2f} ms"
        )
    ratio = statistics.median(ingest["1"]) / statistics.median(ingest["0"])
    print(f"  ingest ratio on / off: {ratio:.2f}; model import and load {float(out.stdout):.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpora", nargs="+", type=Path)
    ap.add_argument("--per-kind", type=int, default=150)
    ap.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.25, 0.5, 1.0, 2.0])
    ap.add_argument("--candidates", type=int, default=20)
    ap.add_argument("--speed", action="store_true", help="time the product tier instead")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    for corpus in args.corpora:
        if args.speed:
            speed(corpus, args.rounds)
        else:
            trial(corpus, args.per_kind, args.weights, args.candidates)


if __name__ == "__main__":
    main()
