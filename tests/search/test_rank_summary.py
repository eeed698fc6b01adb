"""The summary-field signal and the cascade's short stages (#18: paraphrased questions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked import rank
from kenso_git.search.ranked.cascade import search
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rankdocs import summary_words
from kenso_git.search.ranked.rankdocs import words
from kenso_git.text.chunk import chunk_document
from kenso_git.text.chunk import search_labels
from kenso_git.text.parse import parse_document
from tests.search.helpers import IndexBuilder
from tests.search.helpers import topics_kb

FILLER = "Other text about layout, styling and data binding fills this paragraph out.\n\n"
QUESTION = "keep a dialog floating above the other forms while the user drags it"


@pytest.fixture
def described(tmp_path: Path) -> KnowledgeBase:
    """`topmost.md` is described by the question; `layout.md` has a heading sharing its words."""
    return topics_kb(
        tmp_path,
        {
            "topmost.md": "---\ntitle: Topmost Windows\ndescription: Keep a dialog above "
            "every other form while the user drags it around.\n---\n\n# Topmost Windows"
            "\n\nSet the TopMost property to true. " + FILLER * 2,
            "layout.md": "# Dialog Layout\n\n## Dragging a dialog form\n\nRepaint costs grow "
            "with the size of the surface.\n\n" + FILLER,
        },
    )


def _top(kb: KnowledgeBase, query: str) -> str:
    return kb.search(query, limit=5).hits[0].file_path


def test_a_page_described_by_the_question_outranks_one_whose_heading_shares_its_words(
    described: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    # neither page holds every word ("floating"): both are OR hits, ranked by the signals
    assert {h.cascade_stage for h in described.search(QUESTION, limit=2).hits} == {"OR"}
    assert "summary" in DEFAULT_ON
    # the heading signal alone, a partial heading counted whole, lifts the wrong page (at
    # the heading power the defaults without `summary` no longer do: BM25 favours the
    # described page here)
    monkeypatch.setattr(rank, "TUNING", rank.TUNING._replace(heading_power=1.0))
    monkeypatch.setenv(ENV, "heading")
    assert _top(described, QUESTION) == "docs/layout.md"
    monkeypatch.delenv(ENV)
    assert _top(described, QUESTION) == "docs/topmost.md"
    monkeypatch.undo()
    assert _top(described, QUESTION) == "docs/topmost.md"


def test_summary_words_are_the_summary_fields_of_the_search_labels(tmp_path: Path) -> None:
    text = (
        "---\ntitle: Retries\ndescription: Backoff between attempts.\naliases: [retrying]\n"
        "answers: [why does my call fail twice]\npredicted_queries: [jitter]\n"
        "tags: [network]\n---\n\n# Retries\n\nBody words stay out.\n"
    )
    doc = parse_document("docs/retries.md", text)
    labels, _ = search_labels(doc, chunk_document(doc))
    expected = words("Backoff between attempts retrying why does my call fail twice jitter")
    # the labels' spelling lives in text/chunk.py; rankdocs.py spells it out (no parser import)
    assert summary_words(labels) == expected


def test_a_short_stage_hit_ranks_by_score_not_ahead_of_every_later_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "off")  # the cascade alone
    b = IndexBuilder(tmp_path / "i.db")
    # every query word once, far apart in a long body: the only AND hit, and a weak one
    body = " ".join(["widget"] + ["filler"] * 60 + ["theme"] + ["filler"] * 60 + ["color"])
    b.doc("docs/chance.md", body)
    b.doc("docs/theme.md", [("Widget Theme", "The widget theme: a widget theme per widget.")])
    for i in range(12):
        b.doc(f"docs/t{i}.md", f"Unrelated page number {i}.")
    hits = search(b.reader(), "widget theme color", limit=5).hits
    assert [(h.file_path, h.cascade_stage) for h in hits[:2]] == [
        ("docs/theme.md", "OR"),
        ("docs/chance.md", "AND"),  # kept (kenso drops it), but no longer pinned first
    ]
