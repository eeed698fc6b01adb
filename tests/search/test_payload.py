from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.errors import DocumentNotFoundError
from kenso_git.errors import EmptyQueryError
from kenso_git.errors import NoQueriesError
from kenso_git.errors import UsageError
from kenso_git.search.ranked.cascade import search
from kenso_git.search.ranked.payload import get_doc_payload
from kenso_git.search.ranked.payload import search_docs_payload
from kenso_git.search.ranked.payload import search_multi_payload
from tests.search.helpers import ITEM_KEYS
from tests.search.helpers import IndexBuilder


@pytest.fixture
def corpus(tmp_path: Path) -> IndexBuilder:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc(
        "docs/hooks.md",
        [("Hooks > Pre-commit", "The pre-commit hook runs the linter. It blocks bad commits.")],
        tags=["git", "hooks"],
        category="guides",
        file_title="Git Hooks",
    )
    b.doc("docs/deploy.md", "Deploying to kubernetes needs a cluster.", category="ops")
    b.doc("docs/rollback.md", "Rollback plan for a failed cluster deployment.", category="ops")
    b.link("docs/deploy.md", "docs/rollback.md")
    return b


def test_search_docs_item_keys_and_order(corpus: IndexBuilder) -> None:
    items = search_docs_payload(search(corpus.reader(), "linter"), preview_chars=200)
    assert isinstance(items, list)
    (item,) = items
    assert list(item) == [*ITEM_KEYS, "tags", "highlight"]
    assert item["file_path"] == "docs/hooks.md"
    assert item["title"] == "Hooks > Pre-commit"
    assert item["match_source"] == "content"
    assert item["content_preview"] == "The pre-commit hook runs the linter. It blocks bad commits."
    assert item["tags"] == ["git", "hooks"]
    assert item["score"] == round(item["score"], 4)
    assert item["cascade_stage"] == "AND"
    assert item["relevance"] == "high"


def test_optional_keys_only_when_non_empty(corpus: IndexBuilder) -> None:
    items = search_docs_payload(search(corpus.reader(), "cluster"), preview_chars=200)
    assert isinstance(items, list)
    by_path = {item["file_path"]: item for item in items}
    assert "tags" not in by_path["docs/deploy.md"]
    assert by_path["docs/deploy.md"]["related_count"] == 1


def test_title_match_previews_title_and_first_sentence(corpus: IndexBuilder) -> None:
    items = search_docs_payload(search(corpus.reader(), "hooks"), preview_chars=200)
    assert isinstance(items, list)
    assert items[0]["match_source"] == "title"
    assert (
        items[0]["content_preview"] == "Hooks > Pre-commit — The pre-commit hook runs the linter."
    )


def test_blank_query_raises_with_kensos_reply(corpus: IndexBuilder) -> None:
    with pytest.raises(EmptyQueryError) as caught:
        search_docs_payload(search(corpus.reader(), "  "), preview_chars=200)
    assert caught.value.reply == "Empty query."  # what the MCP tool answers
    assert isinstance(caught.value, UsageError)
    assert caught.value.message == "empty query" and caught.value.hint


def test_no_hits_is_an_empty_list(corpus: IndexBuilder) -> None:
    assert search_docs_payload(search(corpus.reader(), "xylophone"), preview_chars=200) == []


def test_corrected_query_wraps_the_results(corpus: IndexBuilder) -> None:
    corpus.doc("docs/tf.md", [("Terraform Modules", "Modules group resources.")])
    payload = search_docs_payload(search(corpus.reader(), "terraformm"), preview_chars=200)
    assert isinstance(payload, dict)
    assert list(payload) == ["corrected_query", "original_query", "results"]
    assert payload["corrected_query"] == "terraform"
    assert payload["original_query"] == "terraformm"
    assert payload["results"][0]["file_path"] == "docs/tf.md"


def test_search_multi_errors_and_blanks(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    nothing: list[list[str] | None] = [[], None]
    for queries in nothing:
        with pytest.raises(NoQueriesError) as caught:
            search_multi_payload(conn, queries)
        assert caught.value.reply == "No queries provided."
    assert search_multi_payload(conn, ["  ", ""]) == []


def test_search_multi_fuses_ranks(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    first = [h.file_path for h in search(conn, "cluster", limit=10).hits]
    second = [h.file_path for h in search(conn, "rollback", limit=10).hits]
    expected: dict[str, float] = {}
    for ranking in (first, second):
        for rank, path in enumerate(ranking, start=1):
            expected[path] = expected.get(path, 0.0) + 1 / (60 + rank)
    items = search_multi_payload(conn, ["cluster", " rollback ", ""], limit=5)
    assert isinstance(items, list)
    assert [i["file_path"] for i in items] == sorted(expected, key=lambda p: -expected[p])
    assert [i["score"] for i in items] == [round(expected[i["file_path"]], 4) for i in items]
    assert items[0]["file_path"] == "docs/rollback.md"
    assert "highlight" in items[0]  # kenso drops highlights here
    assert list(items[0])[: len(ITEM_KEYS)] == ITEM_KEYS


def test_search_multi_clamps_limits(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    for i in range(30):
        b.doc(f"docs/d{i:02}.md", f"shared topic text number {i}")
    conn = b.reader()
    assert len(search_multi_payload(conn, ["shared topic"], limit=50, limit_max=20)) == 20
    assert len(search_multi_payload(conn, ["shared topic"], limit=0, limit_max=20)) == 1


def test_search_multi_reports_corrections(corpus: IndexBuilder) -> None:
    corpus.doc("docs/tf.md", [("Terraform Modules", "Modules group resources.")])
    payload = search_multi_payload(corpus.reader(), ["terraformm", "cluster"])
    assert isinstance(payload, dict)
    assert payload["corrections"] == {"terraformm": "terraform"}
    assert {r["file_path"] for r in payload["results"]} >= {"docs/tf.md"}


def test_get_doc_joins_chunks_and_uses_the_document_title(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.doc(
        "docs/a.md",
        [("Alpha — Overview", "Intro."), ("Alpha > Setup", "Install it.")],
        tags=["x"],
        category="ops",
        file_title="Alpha",
    )
    b.doc("docs/b.md", [("Beta > Usage", "Use it.")])
    conn = b.reader()
    assert get_doc_payload(conn, "docs/a.md") == {
        "title": "Alpha",
        "content": "Intro.\n\nInstall it.",
        "category": "ops",
        "audience": "all",
        "tags": ["x"],
    }
    assert get_doc_payload(conn, "docs/b.md")["title"] == "Beta > Usage"
    assert get_doc_payload(conn, "docs/b.md")["tags"] is None


def test_get_doc_truncates_and_reports_missing(corpus: IndexBuilder) -> None:
    conn = corpus.reader()
    doc = get_doc_payload(conn, "docs/deploy.md", max_length=9)
    assert doc["content"] == "Deploying..."
    assert doc["truncated"] is True
    assert "truncated" not in get_doc_payload(conn, "docs/deploy.md", max_length=0)
    with pytest.raises(DocumentNotFoundError) as caught:
        get_doc_payload(conn, "docs/nope.md")
    assert caught.value.reply == "No document found at path: docs/nope.md"
    assert caught.value.path == "docs/nope.md" and caught.value.hint
