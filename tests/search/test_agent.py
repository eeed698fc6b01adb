"""The agent surface's search and regex_search over a real indexed repository."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.lang.querylang import QuerySyntaxError
from kenso_git.search.pagination import MAX_ANSWER_CHARS
from kenso_git.search.pagination import CursorError
from kenso_git.search.regex.grep import PatternError
from kenso_git.search.regex.regex_search import RegexRequest
from tests.helpers import doc
from tests.helpers import init_repo

OLD = 1_600_000_000  # 2020: far outside a 7-day window


def _kb(root: Path, files: dict[str, str], old: tuple[str, ...] = ()) -> KnowledgeBase:
    init_repo(root, dict(files))
    for rel in old:
        os.utime(root / rel, (OLD, OLD))
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    files = {
        "api/auth.md": doc("Login Tokens", tags=["auth"]),
        "api/old-auth.md": doc("Session Cookies", tags=["auth"]),
        "api/billing.md": doc("Invoice Totals", tags=["billing"]),
        "guides/auth.md": doc("Auth Guide", tags=["auth"], category="guides"),
        "guides/deploy.md": doc(
            "Deploy Guide",
            "Deploy with canary checks before the release.\n\n"
            "## Rollback steps\n\nRoll back when the canary checks fail.\n",
        ),
    }
    return _kb(tmp_path / "repo", files, old=("api/old-auth.md",))


def _paths(kb: KnowledgeBase, query: str, **kw: object) -> list[str]:
    page = kb.agent_search(SearchRequest(query, page_size=50, **kw))  # type: ignore[arg-type]
    return [hit["path"] for hit in page["results"]]


def test_docs_under_a_folder_with_a_tag_changed_this_week(kb: KnowledgeBase) -> None:
    assert _paths(kb, "in:api tag:auth modified:7d") == ["api/auth.md"]
    assert sorted(_paths(kb, "tag:auth")) == ["api/auth.md", "api/old-auth.md", "guides/auth.md"]
    assert _paths(kb, "tag:auth -in:api") == ["guides/auth.md"]
    assert _paths(kb, "category:GUIDES -tag:auth") == ["guides/deploy.md"]
    assert _paths(kb, "tag:auth", path="guides") == ["guides/auth.md"]
    assert _paths(kb, "ext:md size:<1", mode="exhaustive") == []


def test_phrases_negation_and_the_hit_shape(kb: KnowledgeBase) -> None:
    page = kb.agent_search(SearchRequest('"canary checks" -invoice'))
    assert [h["path"] for h in page["results"]] == ["guides/deploy.md"]
    hit = page["results"][0]
    assert set(hit) == {
        "path",
        "score",
        "snippet",
        "snippet_truncated",
        "match_type",
        "size",
        "modified",
        "title",
        "section",
        "tier",
    }
    assert hit["match_type"] == "Content" and hit["title"] == "Deploy Guide"
    assert hit["tier"] == "AND"  # the cascade stage that found it (#28)
    assert "canary checks" in hit["snippet"] and len(hit["snippet"]) <= 100
    assert hit["modified"] > time.time() - 86400
    assert page["total"] == 1 and page["has_more"] is False and page["next_cursor"] is None
    assert _paths(kb, "canary -rollback") == []
    assert "guides/auth.md" in _paths(kb, "auth")  # the word is in the path: FileName or Both


def test_re_filter_runs_re2_over_the_indexed_text(kb: KnowledgeBase) -> None:
    assert _paths(kb, 're:"canary\\s+checks fail"') == ["guides/deploy.md"]
    with pytest.raises(PatternError, match="refused by RE2"):
        kb.agent_search(SearchRequest('re:"(a)\\1"'))


def test_a_bad_query_or_mode_names_the_problem(kb: KnowledgeBase) -> None:
    with pytest.raises(QuerySyntaxError, match="'modified:someday' at column 8"):
        kb.agent_search(SearchRequest("deploy modified:someday"))
    page = kb.agent_search(SearchRequest("deploy colour:red"))  # no filter: read as words
    assert page["read_as_words"] == ["colour:"]
    with pytest.raises(QuerySyntaxError, match="empty"):
        kb.agent_search(SearchRequest("   "))
    with pytest.raises(QuerySyntaxError, match="mode"):
        kb.agent_search(SearchRequest("deploy", mode="fuzzy"))


def test_a_cursor_from_another_query_is_refused(kb: KnowledgeBase) -> None:
    page = kb.agent_search(SearchRequest("tag:auth", page_size=1))
    assert page["has_more"] and page["next_cursor"]
    with pytest.raises(CursorError):
        kb.agent_search(SearchRequest("tag:billing", cursor=page["next_cursor"]))
    with pytest.raises(CursorError):
        kb.agent_search(SearchRequest("tag:auth", cursor="k1-zz-00000000"))


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    files = {
        f"notes/n{i:03}.md": doc(
            f"Note {i}",
            f"Shared marker word appears here, note number {i}.\n\n"
            + f"## Part {i}\n\n"
            + "Padding text.\n" * (i % 5)
            + ("marker again\n" if i % 3 == 0 else ""),
        )
        for i in range(130)
    }
    return _kb(tmp_path_factory.mktemp("many") / "repo", files)


@pytest.mark.parametrize("mode", ["ranked", "exhaustive"])
def test_walking_every_page_returns_each_hit_exactly_once(many: KnowledgeBase, mode: str) -> None:
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = many.agent_search(SearchRequest("marker", page_size=7, cursor=cursor, mode=mode))
        seen += [h["path"] for h in page["results"]]
        pages += 1
        assert page["returned"] == len(page["results"]) <= 7
        if not page["has_more"]:
            assert page["next_cursor"] is None
            break
        cursor = page["next_cursor"]
        assert pages < 100
    assert len(seen) == len(set(seen)) == 130
    assert pages == 19
    if mode == "exhaustive":
        assert seen == sorted(seen)


def test_regex_search_gives_line_numbers_sections_and_pages(many: KnowledgeBase) -> None:
    hits: list[tuple[str, int]] = []
    cursor = None
    for _ in range(100):
        page = many.agent_search(RegexRequest(r"^marker\s+again$", page_size=9, cursor=cursor))
        hits += [(h["path"], h["line"]) for h in page["results"]]
        assert all(h["match_type"] == "Regex" for h in page["results"])
        if not page["has_more"]:
            assert page["total_is_lower_bound"] is False
            break
        assert page["total_is_lower_bound"] is True
        cursor = page["next_cursor"]
    expected = 44  # i % 3 == 0 for i in 0..129
    assert len(hits) == len(set(hits)) == expected
    first = many.agent_search(RegexRequest(r"number 3\.", page_size=1))["results"][0]
    assert (first["path"], first["line"], first["section"]) == ("notes/n003.md", 3, "Note 3")
    third = many.agent_search(RegexRequest("^marker again", path="notes", ext="md"))
    assert third["results"][0]["section"] == "Part 0"


def test_regex_patterns_are_capped_and_compiled_first(many: KnowledgeBase) -> None:
    with pytest.raises(PatternError, match="longer than 512 bytes"):
        many.agent_search(RegexRequest("a" * 513))
    with pytest.raises(PatternError, match="refused by RE2: invalid perl operator") as caught:
        many.agent_search(RegexRequest("(?=marker)"))
    assert caught.value.hint is not None and "lookaround" in caught.value.hint
    with pytest.raises(PatternError, match="refused by RE2") as unclosed:
        many.agent_search(RegexRequest("(unclosed"))
    assert "(?m)" not in unclosed.value.message  # what RE2 compiled is not the caller's
    with pytest.raises(PatternError, match="empty"):
        many.agent_search(RegexRequest(""))


def test_a_catastrophic_pattern_answers_on_a_huge_line(tmp_path: Path) -> None:
    """(a+)+$ backtracks exponentially in Python's re; RE2 finds no match in one pass."""
    kb = _kb(tmp_path / "repo", {"big.md": "# Big\n\n" + "a" * 100_000 + "b\n"})
    page = kb.agent_search(RegexRequest("(a+)+$"))
    assert page["results"] == [] and page["total"] == 0
    assert kb.agent_search(RegexRequest("(a+)+b$"))["results"][0]["line"] == 3


def test_every_page_fits_the_answer_budget(tmp_path: Path) -> None:
    long_dir = "/".join(["a-very-long-folder-name-for-paths"] * 6)
    files = {
        f"{long_dir}/{'x' * 120}-{i}.md": doc("T" * 400 + f" {i}", f"budget word {i}\n" * 40)
        for i in range(50)
    }
    kb = _kb(tmp_path / "repo", files)
    for request in (
        SearchRequest("budget", page_size=50),
        SearchRequest("budget", page_size=50, mode="exhaustive"),
        RegexRequest("budget", page_size=50),
    ):
        page = kb.agent_search(request)
        size = len(json.dumps(page, indent=2, ensure_ascii=False))
        assert size <= MAX_ANSWER_CHARS
        assert page["token_budget"] * 4 >= size
        assert all(len(h["snippet"]) <= 100 for h in page["results"])
        assert all(len(h["title"] or "") <= 200 for h in page["results"])


@pytest.mark.parametrize("mode", ["ranked", "exhaustive"])
def test_words_and_phrases_joined_by_a_special_character_find_their_page(
    tmp_path: Path, mode: str
) -> None:
    # `:` was deleted from a phrase and a word, fusing `localhost:8080` into a token no page
    # holds; inside FTS5 quotes it is the tokenizer's separator, as in the page
    kb = _kb(
        tmp_path / "repo",
        {
            "dev.md": doc("Dev Server", "Open localhost:8080 in a browser; screens are 16:9.\n"),
            "other.md": doc("Other Page", "Nothing about servers or screens at all here.\n"),
        },
    )
    for query in ('"localhost:8080"', "localhost:8080", '"16:9"', "16:9", '"screens are 16:9"'):
        assert _paths(kb, query, mode=mode) == ["dev.md"], query
    assert _paths(kb, '"localhost:9090"', mode=mode) == []
