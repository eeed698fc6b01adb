"""The one query pipeline (#28): the `search` tool's ranked mode is `search_docs`'s ranking,
filtered and paged."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from tests.helpers import doc
from tests.helpers import init_repo

CERT = (
    "Certificates that sign release builds expire after a year. To renew the signing "
    "certificate, request a new one from the security team and upload it to the vault.\n"
)


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    files = {
        "ops/signing.md": doc("Code Signing", f"## Renewal\n\n{CERT}"),
        "ops/certs.md": doc("TLS Certificates", "Web certificates are renewed by a bot.\n"),
        "ops/deploy.md": doc("Deploy", "Deploy a release build behind a canary.\n"),
        "guides/release.md": doc(
            "Release Guide", "A release build is signed before upload.\n", tags=["release"]
        ),
        "guides/vault.md": doc("Vault", "The vault keeps every secret and certificate.\n"),
    }
    files |= {
        f"notes/n{i:02}.md": doc(f"Note {i}", f"Release build note {i}, signed and uploaded.\n")
        for i in range(30)
    }
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def _page(kb: KnowledgeBase, query: str, **kw: object) -> dict[str, object]:
    return dict(kb.agent_search(SearchRequest(query, **kw)))  # type: ignore[arg-type]


def _paths(page: dict[str, object]) -> list[str]:
    results = page["results"]
    assert isinstance(results, list)
    return [hit["path"] for hit in results]


def _docs_order(kb: KnowledgeBase, query: str, limit: int) -> list[str]:
    found = kb.search_docs(query, limit=limit)
    hits = found["results"] if isinstance(found, dict) else found
    return [h["file_path"] for h in hits]


@pytest.mark.parametrize(
    "question",
    [
        "how do I renew the signing certificate",
        "release build signed",
        "vault certificate",
        "secret vault",
    ],
)
def test_a_question_in_words_gets_the_order_search_docs_gives(
    kb: KnowledgeBase, question: str
) -> None:
    page = _page(kb, question, page_size=10)
    expected = _docs_order(kb, question, 10)
    assert expected, question
    assert _paths(page)[: len(expected)] == expected


def test_the_signing_question_finds_its_page_first(kb: KnowledgeBase) -> None:
    page = _page(kb, "how do I renew the signing certificate")
    assert _paths(page)[0] == "ops/signing.md"
    hit = page["results"][0]  # type: ignore[index]
    assert hit["match_type"] == "Content" and hit["tier"] in ("AND", "NEAR", "OR")


def test_filters_apply_inside_the_ranking_so_a_page_fills_from_deeper_hits(
    kb: KnowledgeBase,
) -> None:
    every = _docs_order(kb, "release build", 20)
    page = _page(kb, "release build in:guides", page_size=5)
    assert _paths(page) == [p for p in every if p.startswith("guides/")]
    tagged = _page(kb, "release build tag:release")
    assert _paths(tagged) == ["guides/release.md"]
    without = _paths(_page(kb, "release build -in:notes", page_size=50))
    assert without and not any(p.startswith("notes/") for p in without)


def test_a_phrase_must_appear_and_a_negated_word_must_not(kb: KnowledgeBase) -> None:
    assert _paths(_page(kb, '"signing certificate" renew')) == ["ops/signing.md"]
    assert "ops/signing.md" not in _paths(_page(kb, "certificate -vault -renew"))


def test_pages_walk_the_whole_ranking_without_repeats(kb: KnowledgeBase) -> None:
    seen: list[str] = []
    cursor = None
    while True:
        page = _page(kb, "release build", page_size=7, cursor=cursor)
        seen += _paths(page)
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert len(seen) == len(set(seen)) >= 31
    assert seen[:10] == _docs_order(kb, "release build", 10)


def test_a_misspelt_word_is_corrected_as_search_docs_corrects_it(kb: KnowledgeBase) -> None:
    asked = "signng certficate"
    found = kb.search_docs(asked, limit=10)
    assert isinstance(found, dict), found  # search_docs corrected it
    page = _page(kb, asked)
    assert page.get("corrected_query") == found["corrected_query"]
    assert _paths(page)[: len(found["results"])] == [h["file_path"] for h in found["results"]]


def test_a_word_only_in_a_path_is_a_file_name_match_after_the_ranked_ones(
    kb: KnowledgeBase,
) -> None:
    page = _page(kb, "n07", page_size=50)
    assert _paths(page) == ["notes/n07.md"]
    assert page["results"][0]["match_type"] in ("FileName", "Both")  # type: ignore[index]


def _rankings_behind(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, query: str, **kw: object
) -> tuple[dict[str, object], list[int]]:
    """The page and the depths of the rankings it took (a fresh cache: no earlier page's)."""
    from kenso_git.search.lang import agent
    from kenso_git.search.ranked import cascade

    monkeypatch.setattr(agent, "_CHAINS", type(agent._CHAINS)(agent.RANKING_CACHE_SIZE))
    depths: list[int] = []
    real = cascade.rank

    def counted(*args: object, **kwargs: object) -> cascade.Ranked:
        depths.append(int(kwargs["limit"]))  # type: ignore[call-overload]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cascade, "rank", counted)
    return _page(kb, query, **kw), depths


def test_a_first_page_with_more_after_it_is_ranked_once(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first page of a question with more than a page of matches took two rankings: the
    second (20 deep) only to learn that an eleventh document exists, which the first had
    found already past its depth (an agent's first answer took twice `search_docs`'s time)."""
    page, depths = _rankings_behind(kb, monkeypatch, "release build")
    assert depths == [10]
    assert page["has_more"] is True
    assert _paths(page) == _docs_order(kb, "release build", 10)
    later = _page(kb, "release build", cursor=page["next_cursor"])
    assert _paths(later) and not set(_paths(later)) & set(_paths(page))


def test_a_page_that_ends_the_matches_says_so_without_a_cursor(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = _docs_order(kb, "vault", 10)
    assert 1 <= len(matches) < 10
    page, depths = _rankings_behind(kb, monkeypatch, "vault", page_size=len(matches))
    assert _paths(page) == matches and page["has_more"] is False
    # a `re:` filter judges a ranked document only: the deeper ranking still tells
    page, depths = _rankings_behind(kb, monkeypatch, 'release build re:"note 2"', page_size=3)
    assert depths[:2] == [10, 20] and page["has_more"] is True
