from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from kenso_git.search.ranked.cascade import search
from kenso_git.search.ranked.hits import relevance
from kenso_git.search.ranked.rank import ENV
from kenso_git.store.schema import BM25_WEIGHTS
from tests.helpers import require_corpus
from tests.search.helpers import IndexBuilder

LABELS = ("Keywords:", "Source:", "Expanded terms:", "Also known as:")


@pytest.fixture
def corpus(tmp_path: Path) -> IndexBuilder:
    b = IndexBuilder(tmp_path / "index.db")
    b.doc(
        "docs/hooks.md",
        [("Hooks > Pre-commit", "The pre-commit hook runs the linter before every commit.")],
        tags=["git", "hooks"],
        category="guides",
    )
    b.doc(
        "docs/deploy.md",
        "Deploying to kubernetes needs a cluster. Deployment takes minutes.",
        category="ops",
    )
    b.doc(
        "docs/rollback.md", "Rollback plan for a failed deployment of the cluster.", category="ops"
    )
    b.doc("docs/pasta.md", "Cooking pasta: boil water, add salt, then commit to the sauce.")
    return b


def paths(conn: sqlite3.Connection, query: str, **kwargs: object) -> list[str]:
    return [h.file_path for h in search(conn, query, **kwargs).hits]  # type: ignore[arg-type]


def test_blank_query_has_no_hits(corpus: IndexBuilder) -> None:
    result = search(corpus.reader(), "   ")
    assert result.hits == ()
    assert result.corrected_query is None


def test_hyphenated_query_passes_the_and_stage(corpus: IndexBuilder) -> None:
    hits = search(corpus.reader(), "pre-commit hook", limit=1).hits
    assert [(h.file_path, h.cascade_stage, h.relevance) for h in hits] == [
        ("docs/hooks.md", "AND", "high")
    ]


def test_punctuation_token_does_not_sink_the_and_stage(corpus: IndexBuilder) -> None:
    hits = search(corpus.reader(), "rollback ? plan", limit=1).hits
    assert [(h.file_path, h.cascade_stage) for h in hits] == [("docs/rollback.md", "AND")]


def test_partial_and_hits_are_kept(corpus: IndexBuilder) -> None:
    # "rollback cluster" matches one document with AND, fewer than min(3, limit=5); kenso
    # would keep only the OR stage's rows (tests/search/test_rank_summary.py: not pinned)
    hits = search(corpus.reader(), "rollback cluster", limit=5).hits
    stages = [(h.file_path, h.cascade_stage) for h in hits]
    assert stages[0] == ("docs/rollback.md", "AND")
    assert ("docs/deploy.md", "OR") in stages[1:]


def test_threshold_is_min_of_three_and_limit(corpus: IndexBuilder) -> None:
    hits = search(corpus.reader(), "cluster minutes", limit=1).hits
    assert [(h.file_path, h.cascade_stage) for h in hits] == [("docs/deploy.md", "AND")]


def test_single_term_after_stop_words_uses_the_prefix_stage(corpus: IndexBuilder) -> None:
    hits = search(corpus.reader(), "the kube", limit=3).hits
    assert [h.file_path for h in hits] == ["docs/deploy.md"]


def test_category_filter_is_exact_and_all_means_no_filter(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    assert sorted(paths(conn, "cluster", category="ops")) == ["docs/deploy.md", "docs/rollback.md"]
    assert paths(conn, "cluster", category="Ops") == []
    assert paths(conn, "cluster", category="guides") == []
    for everything in ("all", "ALL", "none", "*", "", "  "):
        assert len(paths(conn, "cluster", category=everything)) == 2


def test_limit_is_clamped_to_at_least_one(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    assert len(search(conn, "commit", limit=0).hits) == 1
    assert len(search(conn, "commit", limit=-5).hits) == 1
    assert len(search(conn, "commit", limit=1).hits) == 1


def test_path_filter_drops_rows_before_ranking(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    assert set(paths(conn, "cluster")) == {"docs/deploy.md", "docs/rollback.md"}
    only = paths(conn, "cluster", path_filter=lambda p: p != "docs/deploy.md")
    assert only == ["docs/rollback.md"]


def test_one_hit_per_file_with_its_best_chunk(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc(
        "docs/a.md",
        [("A > One", "widget widget widget assembly"), ("A > Two", "a passing widget mention")],
    )
    hits = search(b.reader(), "widget").hits
    assert [(h.file_path, h.title) for h in hits] == [("docs/a.md", "A > One")]


def test_file_path_fallback_escapes_like_wildcards(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc("docs/axb/notes.md", "first body")
    b.doc("docs/a_b/notes.md", "second body")
    b.doc("docs/100%/notes.md", "third body")
    # without the Source line the keyword stages cannot match the path
    b.conn.execute("UPDATE chunks SET search_extra = NULL")
    conn = b.reader()
    hits = search(conn, "a_b/notes").hits
    assert [(h.file_path, h.score, h.cascade_stage, h.highlight) for h in hits] == [
        ("docs/a_b/notes.md", 0.5, None, "")
    ]
    assert paths(conn, "100%/notes.md") == ["docs/100%/notes.md"]
    assert paths(conn, "0%/n") == ["docs/100%/notes.md"]
    assert paths(conn, "zz_z/nothing.md") == []


def test_fuzzy_fallback_corrects_a_typo(corpus: IndexBuilder) -> None:
    b = corpus
    b.doc("docs/kube.md", [("Kubernetes Deployment", "How clusters are provisioned.")])
    result = search(b.reader(), "the kuberntes")
    assert result.corrected_query == "the kubernetes"
    assert result.hits[0].file_path == "docs/kube.md"


def test_fuzzy_keeps_case_and_stop_words(corpus: IndexBuilder) -> None:
    b = corpus
    b.doc("docs/kube.md", [("Kubernetes Deployment", "How clusters are provisioned.")])
    result = search(b.reader(), "Thes kuberntes")
    # "thes" is not a stop word and gets no close title match, so it stays as typed
    assert result.corrected_query in {"Thes kubernetes", None}
    assert search(b.reader(), "wher kuberntes").corrected_query in {"wher kubernetes", None}
    assert search(b.reader(), "where kuberntes").corrected_query == "where kubernetes"


def test_fuzzy_dictionary_sees_writes_by_another_connection(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc("docs/a.md", [("Kubernetes", "cluster text")])
    conn = b.reader()
    assert search(conn, "terraformm").corrected_query is None
    b.doc("docs/b.md", [("Terraform", "infrastructure as code")])
    b.commit()
    result = search(conn, "terraformm")
    assert result.corrected_query == "terraform"
    assert [h.file_path for h in result.hits] == ["docs/b.md"]


def test_no_match_anywhere_gives_nothing(corpus: IndexBuilder) -> None:
    result = search(corpus.reader(), "xylophone")
    assert result.hits == ()
    assert result.corrected_query is None


def _raw_scores(conn: sqlite3.Connection, expression: str) -> dict[str, float]:
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    rows = conn.execute(
        f"SELECT c.file_path, -bm25(chunks_fts, {weights}) FROM chunks_fts "
        "JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?",
        (expression,),
    )
    return dict(rows.fetchall())


def test_relation_rerank_multiplies_by_in_set_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the scores as BM25 gave them, then the relations (`opening` boosts each page's first words)
    monkeypatch.setenv(ENV, "-compress,-opening")
    b = IndexBuilder(tmp_path / "i.db")
    for i in range(4):
        b.doc(f"docs/d{i}.md", "gadget " * (4 - i) + "filler text " * 5)
    b.doc("docs/other.md", "unrelated words")
    b.link("docs/d3.md", "docs/d0.md").link("docs/d3.md", "docs/d0.md", "depends_on")
    b.link("docs/d3.md", "docs/other.md")  # target not in the result set: no boost
    conn = b.reader()
    raw = _raw_scores(conn, '"gadget"')
    hits = {h.file_path: h for h in search(conn, "gadget", limit=4).hits}
    assert hits["docs/d3.md"].score == pytest.approx(raw["docs/d3.md"] * 1.3)
    assert hits["docs/d0.md"].score == pytest.approx(raw["docs/d0.md"] * 1.3)
    assert hits["docs/d1.md"].score == pytest.approx(raw["docs/d1.md"])
    assert hits["docs/d3.md"].related_count == 3
    assert hits["docs/d1.md"].related_count == 0


@pytest.mark.parametrize(
    ("stage", "score", "best", "expected"),
    [
        ("AND", 5.0, 10.0, "high"),
        ("AND", 4.9, 10.0, "medium"),
        ("AND", 2.5, 10.0, "medium"),
        ("AND", 2.4, 10.0, "low"),
        ("NEAR", 6.0, 10.0, "high"),
        ("NEAR", 5.9, 10.0, "medium"),
        ("NEAR", 3.0, 10.0, "medium"),
        ("NEAR", 2.9, 10.0, "low"),
        ("OR", 8.0, 10.0, "high"),
        ("OR", 7.9, 7.9, "medium"),
        ("OR", 5.0, 10.0, "medium"),
        ("OR", 4.9, 4.9, "low"),
        ("OR", 9.0, 20.0, "low"),
        (None, 8.0, 8.0, "high"),
        ("AND", 1.0, 0.0, "low"),
    ],
)
def test_relevance_thresholds(stage: str | None, score: float, best: float, expected: str) -> None:
    assert relevance(stage, score, best) == expected


def test_enrichment_reports_tags_and_link_count(corpus: IndexBuilder) -> None:
    corpus.link("docs/hooks.md", "docs/deploy.md").link("docs/other.md", "docs/hooks.md")
    hit = search(corpus.reader(), "linter", limit=1).hits[0]
    assert (hit.file_path, hit.tags, hit.related_count) == ("docs/hooks.md", ("git", "hooks"), 2)


def test_highlight_marks_content_matches(corpus: IndexBuilder) -> None:
    hit = search(corpus.reader(), "linter", limit=1).hits[0]
    assert hit.highlight == "The pre-commit hook runs the <mark>linter</mark> before every commit."


def test_highlight_never_shows_internal_lines(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc("docs/a.md", "Short body about queues and workers.", tags=["observability"])
    b.doc("docs/b.md", "Another body mentioning orderMatchingEngine once.", aliases=["zebra"])
    b.doc("docs/c.md", "The zebra " + "word " * 60 + "end.", tags=["zebra"])
    conn = b.reader()
    for query in ("observability", "docs", "matching engine", "zebra", "source", "keywords"):
        for hit in search(conn, query, limit=5).hits:
            assert not any(label in hit.highlight for label in LABELS), (query, hit.highlight)
    tagged = search(conn, "observability").hits[0]
    assert tagged.highlight == "Short body about queues and workers."
    (camel,) = [h for h in search(conn, "matching engine").hits if h.file_path == "docs/b.md"]
    assert "orderMatchingEngine" in camel.highlight


# --- real corpus: latency smoke test (timing proper belongs in benchmarks) -----------------

CORPUS_QUERIES = (
    "data binding",
    "routed events",
    "drag and drop",
    "dependency property",
    "clipboard BinaryFormatter",
    "high DPI support",
    "DataGridView sorting",
    "keyboard events SendKeys",
    "how do I validate user input",
    "migrate from .NET Framework",
    "custom control rendering",
    "dispatcher threading",
    "xaml markup extensions",
    "print a document",
    "ToolStrip menu",
    "accessibility UI automation",
    "localization resources",
    "animation storyboard",
    "double-click mouse",
    "application settings",
    "TreeView nodes",
    "async await UI thread",
    "styles and templates",
    "MVVM commands",
    "dark mode",
    "pre-commit",
    "winforms/controls/button",
    "dependecy propertys",
    "the",
    "BindingSource",
)


def _index_corpus(corpus: Path, db_path: Path) -> sqlite3.Connection:
    from kenso_git.kb import KnowledgeBase
    from kenso_git.store.connection import open_reader

    KnowledgeBase.open(corpus, db=str(db_path)).ingest([corpus])
    return open_reader(db_path)


@pytest.mark.corpus
def test_corpus_search_latency(tmp_path: Path) -> None:
    conn = _index_corpus(require_corpus(), tmp_path / "corpus.db")
    for query in CORPUS_QUERIES:  # warm the page cache and the fuzzy dictionary
        search(conn, query)
    times = []
    for query in CORPUS_QUERIES * 3:
        start = time.perf_counter()
        result = search(conn, query)
        times.append(time.perf_counter() - start)
        assert query == "the" or result.hits, query
    times.sort()
    p50, p95 = times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000
    print(f"corpus search latency: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    assert p50 < 50


@pytest.mark.parametrize("query", ["localhost:8080", "16:9", "xref:System.IO", "e-mail"])
def test_a_word_joined_by_a_special_character_finds_the_page_writing_it(
    tmp_path: Path, query: str
) -> None:
    b = IndexBuilder(tmp_path / "index.db")
    b.doc(
        "docs/dev.md",
        "Start the dev server and open localhost:8080 in a browser. Screens use a 16:9 "
        "ratio. See xref:System.IO for files, and send an e-mail when done.",
    )
    b.doc("docs/other.md", "Nothing about servers or screens here at all, only prose.")
    assert paths(b.reader(), query) == ["docs/dev.md"]
