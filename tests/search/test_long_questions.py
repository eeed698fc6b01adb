"""A question of more words than the word cap (`MAX_QUERY_TERMS`) under the character cap:
`search_docs` refused it with "Query has too many words", and the agent `search` tool with
"more than 64 words and filters". #31's fourth held-out set (a policy catalog whose
descriptions run to 131 words) asked 119 of its 360 questions so, and kenso 2.0.0 answered
them. Such a question is now searched by its first `MAX_QUERY_TERMS` words that are neither
stop words nor repeats: the words the cascade reads anyway, so it costs no more than a
question at the cap."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.errors import QueryError
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.lang.longquery import parse_long
from kenso_git.search.lang.querylang import QuerySyntaxError
from kenso_git.search.lang.querylang import Term
from kenso_git.search.lang.querylang import parse
from kenso_git.search.ranked.query import MAX_QUERY_CHARS
from kenso_git.search.ranked.query import MAX_QUERY_TERMS
from kenso_git.search.ranked.query import bounded
from tests.search.helpers import topics_kb

PAGE = (
    "# Restrict host namespaces\n\nPods must not share the host's process, network or IPC "
    "namespaces: a container that does can see and signal every process on the node.\n"
)
# 256 words: the page's words early, then a long tail of other words, stop words and repeats
QUESTION = (
    "Sharing the host namespaces allows a pod to see and signal every process on the node. "
    + " ".join(f"detail{i} of the policy" for i in range(60))
)


def test_a_question_under_the_cap_is_searched_as_written() -> None:
    words = " ".join(f"w{i}" for i in range(MAX_QUERY_TERMS))
    assert bounded(words) == words
    assert bounded("the of a") == "the of a"


def test_a_longer_question_keeps_its_first_distinct_content_words_in_order() -> None:
    assert len(QUESTION.split()) > MAX_QUERY_TERMS
    kept = bounded(QUESTION).split()
    assert len(kept) == MAX_QUERY_TERMS
    assert kept[:4] == ["Sharing", "host", "namespaces", "allows"]  # "the" and "a" dropped
    assert len({w.lower() for w in kept}) == len(kept)  # "policy" once, not 60 times
    assert not {"the", "of", "a", "to", "on"} & {w.lower() for w in kept}
    # only stop words: the first MAX_QUERY_TERMS of them, as the stages read such a query
    assert bounded("the " * (MAX_QUERY_TERMS + 5)).split() == ["the"] * MAX_QUERY_TERMS


def test_both_search_tools_answer_a_question_over_the_word_cap(tmp_path: Path) -> None:
    kb = topics_kb(tmp_path, {"policies/host-namespaces.md": PAGE})
    docs = kb.search_docs(QUESTION, limit=5)
    assert [d["file_path"] for d in docs][:1] == ["docs/policies/host-namespaces.md"]
    page = kb.agent_search(SearchRequest(QUESTION, page_size=5))
    assert [hit["path"] for hit in page["results"]][:1] == ["docs/policies/host-namespaces.md"]


def test_the_character_cap_and_syntax_over_the_word_cap_are_still_refused(
    tmp_path: Path,
) -> None:
    kb = topics_kb(tmp_path, {"policies/host-namespaces.md": PAGE})
    with pytest.raises(QueryError, match=str(MAX_QUERY_CHARS)):
        kb.search_docs("namespaces " * (MAX_QUERY_CHARS // 11 + 1))
    # phrases, negations and filters are syntax, kept whole: past the cap on their own,
    # the query is refused by the language's error
    many = " ".join(f'"host w{i}"' for i in range(MAX_QUERY_TERMS)) + " tag:x"
    with pytest.raises(QuerySyntaxError, match=f"more than {MAX_QUERY_TERMS}"):
        kb.agent_search(SearchRequest(many))
    many = " ".join(f"-w{i}" for i in range(MAX_QUERY_TERMS + 1))
    with pytest.raises(QuerySyntaxError, match=f"more than {MAX_QUERY_TERMS}"):
        kb.agent_search(SearchRequest(many))


def test_a_question_with_a_phrase_over_the_word_cap_is_answered(tmp_path: Path) -> None:
    """It was refused whole ("more than 64 words and filters"): an agent pasting an error
    message with a quoted string into a long question got nothing. The phrase, negations
    and filters are kept as written and the first distinct content words fill the cap."""
    other = "# Network policy\n\nA pod's network traffic, allowed or denied by labels.\n"
    kb = topics_kb(tmp_path, {"policies/host-namespaces.md": PAGE, "policies/net.md": other})
    asked = '"host namespaces" ' + QUESTION
    page = kb.agent_search(SearchRequest(asked, page_size=5))
    assert [hit["path"] for hit in page["results"]] == ["docs/policies/host-namespaces.md"]
    # the phrase still decides: one the page does not hold finds nothing
    page = kb.agent_search(SearchRequest('"host network stack" ' + QUESTION, page_size=5))
    assert page["results"] == []
    # and a negation or a filter far past the 64th word still applies
    page = kb.agent_search(SearchRequest(asked + " -namespaces", page_size=5))
    assert page["results"] == []
    page = kb.agent_search(SearchRequest(asked + " in:docs/other", page_size=5))
    assert page["results"] == []


def test_a_filter_or_negation_past_the_64th_word_applies_without_a_phrase(
    tmp_path: Path,
) -> None:
    """A question in words over the cap was cut, as a string, to its first 64 content
    words: a filter or a negation written after them was dropped, and the page it excludes
    was served."""
    kb = topics_kb(tmp_path, {"policies/host-namespaces.md": PAGE})
    page = kb.agent_search(SearchRequest(QUESTION, page_size=5))
    assert [hit["path"] for hit in page["results"]] == ["docs/policies/host-namespaces.md"]
    for after in (" in:docs/other", " -namespaces", " tag:nothing"):
        page = kb.agent_search(SearchRequest(QUESTION + after, page_size=5))
        assert page["results"] == [], after


def test_a_long_query_keeps_its_syntax_and_its_first_content_words_in_order() -> None:
    query = parse_long('"host namespaces" ' + QUESTION + " -detail3 tag:pods")
    assert len(query.terms) + len(query.filters) == MAX_QUERY_TERMS
    assert query.terms[0] == Term("host namespaces", phrase=True)
    assert [t.text for t in query.terms[1:5]] == ["Sharing", "host", "namespaces", "allows"]
    assert query.terms[-1] == Term("detail3", negated=True)
    assert [(f.name, f.value) for f in query.filters] == [("tag", "pods")]
    plain = [t.text.lower() for t in query.terms if not (t.phrase or t.negated)]
    assert len(set(plain)) == len(plain) and not {"the", "of", "a"} & set(plain)
    short = '"host namespaces" pods'
    assert parse_long(short) == parse(short)


TOKENS = ["word", "the", "of", "Pods", "pods", '"a phrase"', "-gone", '-"no such"', "tag:x"]
TOKENS += ["in:docs", "ext:md", "--all", "-g", "-12", "How to:", '16"', 're:"a+"']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=150), st.lists(st.integers(0, 999), max_size=80))
def test_a_long_query_keeps_all_its_syntax_or_is_refused(
    picked: list[str], numbers: list[int]
) -> None:
    """Whatever the mix, the query read is at most the cap, every phrase, negation and
    filter of the query as written is in it, and its words are ones the query holds."""
    text = " ".join(picked + [f"w{n}" for n in numbers])
    try:
        full = parse(text, caps=(MAX_QUERY_CHARS, MAX_QUERY_CHARS))
    except QuerySyntaxError:
        with pytest.raises(QuerySyntaxError):
            parse_long(text)
        return
    syntax = [t for t in full.terms if t.phrase or t.negated]
    try:
        read = parse_long(text)
    except QuerySyntaxError as refused:
        assert len(syntax) + len(full.filters) > MAX_QUERY_TERMS, refused
        return
    assert len(read.terms) + len(read.filters) <= MAX_QUERY_TERMS
    assert read.filters == full.filters
    assert [t for t in read.terms if t.phrase or t.negated] == syntax
    assert all(t in full.terms for t in read.terms)
    if len(full.terms) + len(full.filters) <= MAX_QUERY_TERMS:
        assert read == full
