"""Search quality against kenso 2.0.0: known-item queries drawn from a corpus, both tools.

    python benchmarks/bench_quality.py CORPUS [CORPUS ...] [--held-out CORPUS ...] [--ablate]
        [--kenso-venv DIR] [--per-kind 150] [--kenso-cache DIR]

Each corpus folder is copied to a plain temporary folder and indexed by both tools. The
queries are made from the documents themselves, by rules that know nothing of either
tool, and each has the document it came from as its answer:

- `title`: a document's frontmatter `title`, else its first `# ` heading;
- `description`: its frontmatter `description` (how people describe what they look for);
- `heading`: an H2-H4 heading (the answer: any document with that heading);
- `sentence`: the first 8 words of a body paragraph (prose, not code, lists or tables);
- `paraphrase`: a question built from the document without its wording: its frontmatter
  `answers:`/`aliases:` entries when it has them, else the content words of its
  description (or first paragraph) with a third dropped, the rest shuffled, a small fixed
  synonym table applied, and a question word in front (see `paraphrase()`).

Per kind it prints the share of queries whose answer is the first result (hit@1), among
the first five (hit@5), and the mean reciprocal rank within ten (MRR@10), for both tools,
and then the queries where kenso ranks the answer higher. Queries are sampled with a
fixed seed. Not run in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_core import ensure_kenso  # noqa: E402 - the benchmark folder is not a package

KINDS = ("title", "description", "heading", "sentence", "paraphrase")
DEPTH = 10
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

_FRONTMATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", re.S)
_HEADING = re.compile(r"^(#{1,4})[ \t]+(.+?)[ \t#]*$", re.M)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_MARKUP = re.compile(r"\]\([^)]*\)|[`*_\[\]()<>{}|#\"]")

Triple = tuple[str, str, set[str]]  # (kind, query, the documents that answer it)


def _field(frontmatter: str, key: str) -> str | None:
    match = re.search(rf"^{key}:[ \t]*(.+)$", frontmatter, re.M)
    if match is None:
        return None
    value = match.group(1).strip().strip("\"'")
    return value if value and value not in ("|", ">", ">-", "|-") else None


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split())


def _queries_of(text: str) -> dict[str, list[str]]:
    """Candidate queries of one document, by kind."""
    out: dict[str, list[str]] = defaultdict(list)
    match = _FRONTMATTER.match(text)
    front, body = (match.group(1), text[match.end() :]) if match else ("", text)
    body = _FENCE.sub("", body)
    headings = [(len(m.group(1)), _plain(m.group(2))) for m in _HEADING.finditer(body)]
    title = _field(front, "title") or next((h for level, h in headings if level == 1), None)
    if title and len(title) >= 4:
        out["title"].append(_plain(title))
    description = _field(front, "description")
    if description and len(description.split()) >= 3:
        out["description"].append(_plain(description))
    out["heading"].extend(h for level, h in headings if level >= 2 and len(h.split()) >= 2)
    first_prose = None
    for paragraph in re.split(r"\n\s*\n", body):
        line = paragraph.strip()
        if not line or line[0] in "#|>-*+<!0123456789[" or paragraph.startswith("    "):
            continue
        words = _plain(line).split()
        if len(words) >= 12:
            out["sentence"].append(" ".join(words[:8]))
            first_prose = first_prose or " ".join(words[:24])
    listed = _list_field(front, "answers") + _list_field(front, "aliases")
    if listed:
        out["paraphrase"].extend(_plain(v) for v in listed if len(v.split()) >= 2)
    elif description or first_prose:
        question = paraphrase(_plain(description or first_prose or ""), title or "")
        if question:
            out["paraphrase"].append(question)
    return out


# A small, fixed table of everyday words people use for the words docs use.
SYNONYMS = {
    "create": "make",
    "delete": "remove",
    "remove": "get rid of",
    "configure": "set up",
    "configuration": "settings",
    "install": "set up",
    "installation": "setup",
    "display": "show",
    "displays": "shows",
    "modify": "change",
    "update": "change",
    "retrieve": "get",
    "returns": "gives back",
    "return": "give back",
    "execute": "run",
    "executes": "runs",
    "specify": "give",
    "specified": "given",
    "enable": "turn on",
    "disable": "turn off",
    "enables": "turns on",
    "allows": "lets",
    "allow": "let",
    "use": "work with",
    "uses": "works with",
    "using": "with",
    "provides": "offers",
    "provide": "offer",
    "application": "app",
    "applications": "apps",
    "directory": "folder",
    "directories": "folders",
    "error": "failure",
    "errors": "failures",
    "start": "begin",
    "starts": "begins",
    "stop": "halt",
    "information": "info",
    "multiple": "several",
    "default": "standard",
    "method": "function",
    "parameter": "argument",
    "parameters": "arguments",
    "option": "setting",
    "options": "settings",
    "manage": "handle",
    "manages": "handles",
    "build": "compile",
    "view": "look at",
    "check": "verify",
    "requires": "needs",
    "require": "need",
    "available": "offered",
    "following": "these",
    "describes": "explains",
    "explains": "describes",
    "document": "page",
    "documentation": "docs",
    "file": "document",
}
_QUESTION_WORDS = ("how do I", "what is", "where can I find", "how to", "why does")
_STOP_TEXT = (
    "a an the is are was were be been being have has had do does did will would could should "
    "can may might shall how what when where which who why it i my we our you your they "
    "their this that these those in on at to for of with from by about and or not but if so "
    "its as into also than then there here such each all any more most some only other"
)
_STOP = frozenset(_STOP_TEXT.split())


def paraphrase(text: str, title: str) -> str | None:
    """A question about `text` that does not repeat it: a deterministic word-drop, shuffle
    and synonym swap, seeded by the text itself (so the same docs give the same queries)."""
    words = [w.strip(".,;:!?'").lower() for w in text.split()]
    content = [w for w in dict.fromkeys(words) if w and w not in _STOP and w.isascii()]
    if len(content) < 4:
        return None
    rng = random.Random(text)
    keep = sorted(rng.sample(range(len(content)), max(3, min(6, (len(content) * 2) // 3))))
    chosen = [SYNONYMS.get(content[i], content[i]) for i in keep]
    rng.shuffle(chosen)
    question = f"{rng.choice(_QUESTION_WORDS)} {' '.join(chosen)}"
    # a question that is a substring of the source or its title is not a paraphrase
    return None if question.lower() in (text.lower(), title.lower()) else question


def _list_field(frontmatter: str, key: str) -> list[str]:
    """The entries of a YAML list field, inline (`[a, b]`) or in block form (`- a`)."""
    match = re.search(rf"^{key}:[ \t]*(.*)$", frontmatter, re.M)
    if match is None:
        return []
    inline = match.group(1).strip()
    if inline.startswith("["):
        return [v.strip().strip("\"'") for v in inline.strip("[]").split(",") if v.strip()]
    if inline:
        return [inline.strip("\"'")]
    items = []
    for line in frontmatter[match.end() :].splitlines()[1:]:
        item = re.match(r"^[ \t]+-[ \t]+(.+)$", line)
        if item is None:
            break
        items.append(item.group(1).strip().strip("\"'"))
    return items


def build_queries(corpus: Path, per_kind: int, seed: int) -> list[Triple]:
    """A fixed-seed sample of up to `per_kind` queries of each kind."""
    found: dict[str, dict[str, set[str]]] = {kind: defaultdict(set) for kind in KINDS}
    for path in sorted(corpus.rglob("*.md")):
        rel = path.relative_to(corpus).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for kind, queries in _queries_of(text).items():
            for query in queries:
                found[kind][query].add(rel)
    rng = random.Random(seed)
    out: list[Triple] = []
    for kind in KINDS:
        # a query that more than three documents answer is not a known item
        pool = sorted((q, a) for q, a in found[kind].items() if len(a) <= 3)
        out.extend((kind, q, a) for q, a in rng.sample(pool, min(per_kind, len(pool))))
    return out


def rank_of(results: list[str], answers: set[str]) -> int | None:
    """The rank of the first answer among the distinct documents of `results`, or None."""
    documents = list(dict.fromkeys(results))[:DEPTH]
    return next((i for i, path in enumerate(documents, 1) if path in answers), None)


def ours(
    corpus: Path, db: Path, queries: list[str], configs: list[str]
) -> dict[str, list[list[str]]]:
    """kenso-git's results per `KENSO_GIT_RANK` setting (`""`: the defaults), one index."""
    import os

    from kenso_git.kb import KnowledgeBase

    # the corpus does not change during the run: a sync check before each query would only
    # add time (5x a search on docs-desktop), never a result
    os.environ["KENSO_QUERY_SYNC"] = "0"
    kb = KnowledgeBase.open(corpus, db=str(db))
    kb.ingest()
    out = {}
    for config in configs:
        os.environ["KENSO_GIT_RANK"] = config
        out[config] = [[hit.file_path for hit in kb.search(q, limit=DEPTH).hits] for q in queries]
    os.environ.pop("KENSO_GIT_RANK", None)
    return out


def _cache_key(corpus: Path, queries: list[str]) -> str:
    """What kenso's answers depend on: every file's path and bytes, the queries, the depth."""
    digest = hashlib.sha256(json.dumps([queries, DEPTH]).encode())
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        digest.update(path.relative_to(corpus).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:24]


def kenso(
    python: Path, corpus: Path, db: Path, queries: list[str], work: Path, cache: Path | None
) -> list[list[str]]:
    """kenso 2.0.0's results; with `cache`, kept there per corpus content and query list
    (kenso does not change, and re-running it is most of an iteration's time)."""
    cached = cache / f"kenso-{_cache_key(corpus, queries)}.json" if cache else None
    if cached is not None and cached.is_file():
        hit: list[list[str]] = json.loads(cached.read_text(encoding="utf-8"))
        return hit
    results = _run_kenso(python, corpus, db, queries, work)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(results), encoding="utf-8")
    return results


def _run_kenso(
    python: Path, corpus: Path, db: Path, queries: list[str], work: Path
) -> list[list[str]]:
    query_file = work / "queries.json"
    query_file.write_text(json.dumps(queries), encoding="utf-8")
    proc = subprocess.run(
        [str(python), "-c", KENSO_QUERIES, str(db), str(corpus), str(query_file), str(DEPTH)],
        capture_output=True,
        text=True,
        check=True,
    )
    results: list[list[str]] = json.loads(proc.stdout)
    return results


def _scores(ranks: list[int | None]) -> tuple[float, float, float]:
    hit1 = sum(r == 1 for r in ranks) / len(ranks)
    hit5 = sum(r is not None and r <= 5 for r in ranks) / len(ranks)
    mrr = statistics.fmean(1 / r if r else 0.0 for r in ranks)
    return hit1, hit5, mrr


def kind_rows(
    triples: list[Triple], runs: dict[str, list[list[str]]], kinds: tuple[str, ...] = KINDS
) -> list[str]:
    """One line per kind of query (and "all"): its count and each run's MRR@10 / hit@1."""
    lines = [f"{'kind':12} {'n':>4}" + "".join(f"   {name:^15}" for name in runs)]
    for kind in (*kinds, "all"):
        rows = [i for i, t in enumerate(triples) if kind in ("all", t[0])]
        if not rows:
            continue
        cells = ""
        for results in runs.values():
            hit1, _, mrr = _scores([rank_of(results[i], triples[i][2]) for i in rows])
            cells += f"   {mrr:.3f} / {hit1:.3f}"
        lines.append(f"{kind:12} {len(rows):>4}{cells}")
    return lines


def report(name: str, triples: list[Triple], a: list[list[str]], b: list[list[str]]) -> None:
    print(f"\n{name}: {len(triples)} queries (each cell: kenso-git / kenso)")
    print(f"{'kind':12} {'n':>4}   {'hit@1':^17}   {'hit@5':^17}   {'MRR@10':^13}")
    worse: list[tuple[int, int | None, int | None]] = []
    for kind in (*KINDS, "all"):
        rows = [i for i, t in enumerate(triples) if kind in ("all", t[0])]
        if not rows:
            continue
        ra = [rank_of(a[i], triples[i][2]) for i in rows]
        rb = [rank_of(b[i], triples[i][2]) for i in rows]
        (a1, a5, am), (b1, b5, bm) = _scores(ra), _scores(rb)
        cells = f"{a1:7.1%} / {b1:7.1%}   {a5:7.1%} / {b5:7.1%}   {am:.3f} / {bm:.3f}"
        print(f"{kind:12} {len(rows):>4}   {cells}")
        if kind == "all":
            pairs = zip(rows, ra, rb, strict=True)
            worse = [(i, x, y) for i, x, y in pairs if (y or DEPTH + 1) < (x or DEPTH + 1)]
    print(f"kenso ranks the answer higher for {len(worse)} queries:")
    for i, x, y in worse[:15]:
        kind, query, _ = triples[i]
        print(f"  [{kind}] {query!r}: kenso-git {x or '-'}, kenso {y}")


def ablation(name: str, triples: list[Triple], runs: dict[str, list[list[str]]]) -> None:
    """MRR@10 and hit@1 over all queries for each signal setting."""
    print(f"\nablation on {name} (KENSO_GIT_RANK setting: MRR@10 / hit@1)")
    for config, results in runs.items():
        hit1, _, mrr = _scores([rank_of(r, t[2]) for r, t in zip(results, triples, strict=True)])
        print(f"  {config or 'default':16} {mrr:.3f} / {hit1:.3f}")


Summary = tuple[str, str, float, float, float, float]


def summary(rows: list[Summary]) -> None:
    """One line per corpus: all queries, both tools, and the differences."""
    print("\nsummary (all kinds): corpus, half, MRR@10 kenso-git / kenso (diff), hit@1 (diff)")
    for name, half, am, bm, a1, b1 in rows:
        print(
            f"  {name:45} {half:8} {am:.3f} / {bm:.3f} ({am - bm:+.3f})"
            f"   {a1:.3f} / {b1:.3f} ({a1 - b1:+.3f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("corpora", nargs="+", type=Path)
    ap.add_argument("--kenso-venv", type=Path, default=None)
    ap.add_argument("--per-kind", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--held-out", type=Path, nargs="*", default=[], help="corpora never tuned on")
    ap.add_argument("--ablate", action="store_true", help="also run each signal switched off")
    ap.add_argument(
        "--kenso-cache", type=Path, default=None, help="keep kenso's results here between runs"
    )
    args = ap.parse_args()
    from kenso_git.search.rank import DEFAULT_ON
    from kenso_git.search.rank import SIGNALS

    # each default signal switched off, each signal that is off by default switched on
    toggles = [f"-{s}" if s in DEFAULT_ON else f"+{s}" for s in SIGNALS]
    configs = ["", "off", *toggles] if args.ablate else [""]
    rows: list[Summary] = []
    work = Path(tempfile.mkdtemp(prefix="kenso-quality-"))
    try:
        kenso_py = ensure_kenso(args.kenso_venv, work)
        for number, source in enumerate([*args.corpora, *args.held_out]):
            corpus = work / f"corpus{number}"
            shutil.copytree(source.resolve(), corpus)
            triples = build_queries(corpus, args.per_kind, args.seed)
            queries = [query for _, query, _ in triples]
            runs = ours(corpus, work / f"ours{number}.db", queries, configs)
            b = kenso(kenso_py, corpus, work / f"kenso{number}.db", queries, work, args.kenso_cache)
            report(str(source), triples, runs[""], b)
            if args.ablate:
                ablation(str(source), triples, runs)
            ra = [rank_of(r, t[2]) for r, t in zip(runs[""], triples, strict=True)]
            rb = [rank_of(r, t[2]) for r, t in zip(b, triples, strict=True)]
            (a1, _, am), (b1, _, bm) = _scores(ra), _scores(rb)
            half = "held-out" if number >= len(args.corpora) else "tuning"
            rows.append((str(source), half, am, bm, a1, b1))
        summary(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
