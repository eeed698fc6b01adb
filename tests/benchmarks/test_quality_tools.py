"""`benchmarks/quality_tools.ours` asks kenso-git each known-item question: a question over
the query caps (a 131-word description in a policy catalog) raised `QueryError` and ended
the whole run. It now counts as a question kenso-git gives no answer to, on both surfaces,
and the run goes on."""

from __future__ import annotations

from pathlib import Path

from benchmarks.quality_tools import ours


def test_a_question_over_the_caps_is_a_miss_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    page = "# Rotate TLS\n\nRotate the TLS certificates of a cluster once a year, in time.\n"
    (corpus / "tls.md").write_text(page, encoding="utf-8")
    long_question = " ".join(f"word{i}" for i in range(131))
    runs = ours(corpus, tmp_path / "kb.db", [long_question, "rotate certificates"], [])
    assert runs["search_docs"] == [[], ["tls.md"]]
    assert runs["search"] == [[], ["tls.md"]]
