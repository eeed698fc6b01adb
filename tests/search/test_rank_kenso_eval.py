"""kenso's own 36-query search eval (issue #18): kenso-git must keep Hit@5 1.000 and MRR 1.000.

The corpus and the queries are kenso 2.0.0's `tests/eval/corpus.py`, converted to JSON
unchanged (tests/search/data/kenso_eval.json, MIT, attribution inside). Scoring follows
kenso's `tests/eval/eval_harness.py`: a returned path is relevant when an expected path is
a substring of it (case-insensitive), and only the first five results count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked.rank import ENV

DATA = Path(__file__).parent / "data" / "kenso_eval.json"
K = 5
Eval = tuple[KnowledgeBase, list[dict[str, Any]]]


def _rank(kb: KnowledgeBase, query: str, expected: list[str]) -> int | None:
    paths = list(dict.fromkeys(hit.file_path for hit in kb.search(query, limit=K).hits))[:K]
    wanted = [e.lower() for e in expected]
    return next((i for i, p in enumerate(paths, 1) if any(e in p.lower() for e in wanted)), None)


@pytest.fixture(scope="module")
def eval_kb(tmp_path_factory: pytest.TempPathFactory) -> Eval:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    root = tmp_path_factory.mktemp("kenso-eval")
    for item in data["docs"]:
        target = root / item["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(item["content"], encoding="utf-8")
    kb = KnowledgeBase.open(root, db=str(root / "index.db"))
    kb.ingest()
    return kb, data["cases"]


@pytest.mark.parametrize("setting", ["", "off"])
def test_kensos_36_query_eval_hit5_and_mrr_are_perfect(
    eval_kb: Eval,
    setting: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, setting)  # the default ranking and kenso's order ("off")
    kb, cases = eval_kb
    assert len(cases) == 36
    ranks = {c["id"]: _rank(kb, c["query"], c["expected_paths"]) for c in cases}
    misses = {case_id: rank for case_id, rank in ranks.items() if rank != 1}
    hit5 = sum(r is not None for r in ranks.values()) / len(ranks)
    mrr = sum(1 / r for r in ranks.values() if r) / len(ranks)
    assert (hit5, mrr, misses) == (1.0, 1.0, {})
