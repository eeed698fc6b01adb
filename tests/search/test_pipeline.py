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
