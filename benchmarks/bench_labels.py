"""Search output and index size of one kenso-git source tree, for before/after comparisons.

    python benchmarks/bench_labels.py CORPUS OUT.json [--src DIR] [--per-kind 100] [--copies N]
        [--tags N]

Copies CORPUS (a docs folder) `--copies` times into a temporary folder, ingests it with
the kenso-git found in `--src` (default: this checkout), prints the index size, and with
one copy dumps the full `search_docs` payload (limit 10) and the `get_doc` payload of the
first hit for each query of bench_quality.py's generator to OUT.json. Two dumps made by
two source trees compare byte for byte (`cmp`). Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--src", type=Path, default=HERE.parent)
    ap.add_argument("--per-kind", type=int, default=100)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--tags", type=int, default=0, help="instead: one file, N tags, 300 sections")
    args = ap.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    sys.path.insert(1, str(HERE))
    from bench_quality import build_queries

    import kenso_git
    from kenso_git.kb import KnowledgeBase

    print("kenso_git from", Path(kenso_git.__file__).parent, file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        if args.tags:
            from bench_inputs import tags_and_sections

            (root / "docs").mkdir(parents=True)
            (root / "docs" / "tags.md").write_text(tags_and_sections(args.tags), "utf-8")
        else:
            for k in range(args.copies):
                shutil.copytree(args.corpus, root / f"c{k}")
        kb = KnowledgeBase.open(root)
        start = time.perf_counter()
        kb.ingest()
        took = time.perf_counter() - start
        db = kb.db_path
        size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
        corpus = sum(p.stat().st_size for p in root.rglob("*.md"))
        print(
            f"ingest {took:.1f} s; index {size / 1e6:.1f} MB; corpus {corpus / 1e6:.1f} MB; "
            f"ratio {size / corpus:.2f}"
        )
        if args.copies != 1 or args.tags:
            return
        queries = build_queries(root, args.per_kind, 7)
        out = []
        start = time.perf_counter()
        for _kind, query, _answers in queries:
            hits = kb.search_docs(query, limit=10)
            first = hits[0]["file_path"] if isinstance(hits, list) and hits else None
            doc = kb.get_doc(first) if first else None
            out.append({"q": query, "hits": hits, "doc": doc})
        args.out.write_text(json.dumps(out, sort_keys=True, ensure_ascii=False), "utf-8")
        took = time.perf_counter() - start
        print(f"{len(out)} queries ({took:.2f} s with get_doc) -> {args.out}")


if __name__ == "__main__":
    main()
