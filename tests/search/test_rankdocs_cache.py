"""A search ranks its candidates by what they say, never by the pages earlier searches of the
process read: `rankdocs.docs` gives the docs of the paths asked for and no other (it gave
its whole per-process cache, and `initials` read the abbreviations of every page read so
far, so the same question could rank differently after another search)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked import rankdocs
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

QUESTION = "Windows Presentation Foundation grid validation"
FILES = {
    # the WPF page says "wpf" only in its path; the other says "Windows" in its text
    "wpf/grid.md": "# Grid validation\n\nValidate the cells of a grid with rules before "
    "they are saved.\n",
    "forms/grid.md": "# Grid validation\n\nValidate the cells of a grid in Windows with "
    "rules before they are saved.\n",
    # never a candidate for the question, but it writes the abbreviation in capitals
    "about.md": "# WPF overview\n\nZebras graze on the savanna in large herds.\n",
    "zebras.md": "# Zebras\n\nZebras of the savanna, an overview of their herds.\n",
}


def test_the_docs_of_a_search_are_its_candidates_only(tmp_path: Path) -> None:
    kb = topics_kb(tmp_path, FILES)
    a, b = "docs/about.md", "docs/wpf/grid.md"
    kb.read(lambda conn: rankdocs.docs(conn, [a]))
    assert set(kb.read(lambda conn: rankdocs.docs(conn, [b]))) == {b}
    assert set(kb.read(lambda conn: rankdocs.docs(conn, [a, b, "docs/missing.md"]))) == {a, b}


def _scored(kb: KnowledgeBase, query: str) -> list[tuple[str, float]]:
    return [(h.file_path, round(h.score, 9)) for h in kb.search(query, limit=10).hits]


def test_a_question_ranks_the_same_after_a_search_that_read_another_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, FILES)
    monkeypatch.setattr(rankdocs, "_doc_cache", {})
    alone = _scored(kb, QUESTION)
    monkeypatch.setattr(rankdocs, "_doc_cache", {})
    assert "docs/about.md" in ranked_paths(kb, "zebras savanna overview")
    after = _scored(kb, QUESTION)
    assert "docs/about.md" not in [path for path, _ in alone]
    assert after == alone  # the same pages with the same scores
