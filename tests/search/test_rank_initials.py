"""Signal `initials` (#31, nineteenth round): a name the question spells out, asked of a page
that only abbreviates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.abbrev import expand
from kenso_git.search.ranked.abbrev import initials_in
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rankdocs import caps_words
from kenso_git.search.ranked.rankdocs import words
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb


def test_an_abbreviation_is_a_word_written_in_capitals() -> None:
    assert caps_words("Go FAQ") == {"faq"}
    assert caps_words("Printing in WPF and CRDs") == {"wpf", "crds"}
    # a function's name, a camel-case control and two-letter words are no abbreviations
    assert caps_words("time.Now") == frozenset()
    assert caps_words("The CheckBox control") == frozenset()
    assert caps_words("VM and UI") == frozenset()


def test_a_run_of_content_words_spelling_a_written_abbreviation_is_its_meaning() -> None:
    found = initials_in("A list of frequently asked questions about Go", frozenset({"faq"}))
    assert [(sorted(s.long), s.short) for s in found] == [
        (["asked", "frequently", "question"], "faq")
    ]
    # the plural an abbreviation is written in is found too
    found = initials_in("define custom resource definitions", frozenset({"crds"}))
    assert [s.short for s in found] == ["crds"]
    # a run with a stop word ("the") spells nothing; two words are too few
    assert initials_in("the given time", frozenset({"tgt"})) == ()
    assert initials_in("virtual machine", frozenset({"vm"})) == ()
    # no candidate writes it: nothing is read into the question
    assert initials_in("frequently asked questions", frozenset()) == ()
    # the question writes the abbreviation itself: `abbrev` reads that case
    assert initials_in("frequently asked questions FAQ", frozenset({"faq"})) == ()


def test_a_field_holding_the_abbreviation_holds_the_name_too() -> None:
    meant = initials_in("frequently asked questions", frozenset({"faq"}))
    assert expand(frozenset({"go", "faq"}), meant) == {"go", "faq"} | words(
        "frequently asked questions"
    )
    assert expand(frozenset({"go", "guide"}), meant) == {"go", "guide"}


def _files() -> dict[str, str]:
    # the FAQ page abbreviates its name in its title and path; the style guide says most
    # words of the question, in passing
    return {
        "go/faq.md": "---\ntitle: Go FAQ\n---\n\n# Go FAQ\n\n## Why is my field missing?\n\n"
        "Answers to questions about generated Go code: a field the schema marks unused is "
        "omitted.\n",
        "go/style.md": "---\ntitle: Code style\n---\n\n# Code style\n\nQuestions about Go "
        "code style are asked often; the answer is gofmt.\n",
    }


def test_the_page_that_abbreviates_the_question_s_name_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _files())
    question = "Frequently asked questions about Go code output"
    monkeypatch.setenv(ENV, "-initials")
    assert ranked_paths(kb, question)[0] == "docs/go/style.md"
    monkeypatch.setenv(ENV, "+initials")
    assert ranked_paths(kb, question)[:2] == ["docs/go/faq.md", "docs/go/style.md"]
