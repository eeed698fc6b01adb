"""Signal `opening` (#31, seventeenth round): a page whose first words hold the question's
words is the page the question describes more often than a page that holds them later.

A known-item question paraphrases a page's description, and a description says what the
page's opening sentences say; a page that only mentions the same words somewhere further
down is not what was asked for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.search.ranked.abbrev import collapse
from kenso_git.search.ranked.abbrev import spelled_out
from kenso_git.search.ranked.lead import OPENING_WORDS
from kenso_git.search.ranked.lead import leads
from kenso_git.search.ranked.lead import opening_cover
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rank import SIGNALS
from kenso_git.search.ranked.rankdocs import words
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

QUESTION = "rotate the signing keys of the cluster certificates"
FILLER = " ".join(["lorem ipsum dolor sit amet consectetur adipiscing elit"] * 8)


def _pages() -> dict[str, str]:
    """`opens.md` says the question in its first sentence; `later.md` names every word of it
    twice, but only after its opening."""
    late = " ".join(["rotate signing keys cluster certificates"] * 2)
    return {
        "ops/opens.md": "# Operations one\n\nRotate the signing keys of cluster certificates "
        f"with the tool.\n\n{FILLER}\n\n{FILLER}\n",
        "ops/later.md": f"# Operations two\n\n{FILLER}\n\n{late}\n\n{FILLER}\n",
    }


def test_opening_cover_is_the_share_of_the_question_in_the_first_words(tmp_path: Path) -> None:
    half = " ".join(["lorem"] * (OPENING_WORDS - 2))
    kb = topics_kb(
        tmp_path,
        {
            "a/first.md": f"# First\n\nRotate signing keys here, then carry on.\n\n{FILLER}\n",
            "a/half.md": f"# Half\n\nSigning keys: {half} rotate certificates\n",
            "a/none.md": f"# None\n\n{FILLER}\n",
        },
    )
    paths = [f"docs/a/{name}.md" for name in ("first", "half", "none")]
    cover = kb.read(lambda conn: opening_cover(words("rotate signing keys"), leads(conn, paths)))
    # half.md: "rotate" is word OPENING_WORDS + 1 of its opening, past the first words
    assert cover == {"docs/a/first.md": 1.0, "docs/a/half.md": pytest.approx(2 / 3)}


def test_a_name_spelled_out_in_the_opening_is_read_as_its_abbreviation(tmp_path: Path) -> None:
    opening = "The Integrated Scripting Environment opens scripts in tabs."
    kb = topics_kb(tmp_path, {"ise/tabs.md": f"# Tabs\n\n{opening}\n\n{FILLER}\n"})
    question = "Tabs in the Integrated Scripting Environment ISE"
    spelled = spelled_out(question)
    assert spelled  # the question spells the abbreviation out
    wanted = collapse(words(question), spelled)
    assert wanted == {"tabs", "ise"}
    paths = ["docs/ise/tabs.md"]
    firsts = kb.read(lambda conn: leads(conn, paths))
    assert opening_cover(wanted, firsts, spelled) == {paths[0]: 1.0}
    # without `spelled`, the page's words are not read as the abbreviation: only "tabs" holds
    assert opening_cover(wanted, firsts) == {paths[0]: 0.5}


def test_the_page_that_opens_with_the_question_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _pages())
    assert "opening" in SIGNALS and "opening" in DEFAULT_ON  # on: the 17th round's rule held
    monkeypatch.setenv(ENV, "-opening")
    assert ranked_paths(kb, QUESTION)[0] == "docs/ops/later.md"  # more of the words: BM25
    monkeypatch.delenv(ENV)
    assert ranked_paths(kb, QUESTION)[0] == "docs/ops/opens.md"


def _opening_by_words(text: str) -> str:
    """The opening as the signal first read it: word by word up to the `OPENING_WORDS`th."""
    end = 0
    for count, match in enumerate(re.finditer(r"[^\W_]+", text), 1):
        end = match.end()
        if count == OPENING_WORDS:
            break
    return text[:end]


SEPARATORS = [" ", "\n", "_", "--", " é-", "。", ", ", ""]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 400), st.sampled_from(SEPARATORS)), min_size=30, max_size=90)
)
def test_the_opening_read_in_one_match_ends_where_the_word_by_word_count_ended(
    parts: list[tuple[int, str]],
) -> None:
    """`opening_cover` finds the end of the opening with one regular-expression match; it
    reads the same text as counting the words one by one (what it did before). The words
    are many and distinct, so an opening that ends a word early or late holds another
    share of the whole text's words."""
    text = "".join(f"{sep}word{n}x" for n, sep in parts)
    wanted = words(text) or frozenset({"word0x"})
    held = len(wanted & words(_opening_by_words(text)))
    assert opening_cover(wanted, {"p.md": text}) == ({"p.md": held / len(wanted)} if held else {})
