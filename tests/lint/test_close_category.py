"""KS014's suggestion (`CorpusFacts.close_category`) is the one `difflib.get_close_matches`
gives over every other category, but compares a category only with those sharing enough
characters to reach the cutoff: before, each category used once was compared with every
category (10,000 folders used once: 10^8 comparisons, quadratic in the categories)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.lint.corpus import CorpusFacts
from kenso_git.text.links import PathIndex
from tests.lint.helpers import comparisons

CATEGORIES = [
    "tutorial", "tutorials", "tutorals", "how-to", "howto", "how-tos", "reference",
    "refrence", "references", "concepts", "concept", "api", "apis", "ap", "a", "b", "ab",
    "ba", "guide", "guides", "get-started", "getting-started", "general", "généralités",
    "x", "xx", "xxx", "eee", "ee", "e", "dé", "ed", "faq", "FAQ", "faqs", "overview",
    "overveiw", "windows", "winforms", "wpf", "xaml", "xaml-services", "数据", "数据库",
]  # fmt: skip
CUTOFFS = [0.0, 1e-9, 0.2, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.8, 0.9, 0.99, 1.0]


def _facts(categories: Sequence[str]) -> CorpusFacts:
    return CorpusFacts(PathIndex([]), frozenset(), frozenset(), Counter(categories))


def _reference(category: str, categories: Sequence[str], cutoff: float) -> str | None:
    """What KS014 suggested before: the best of every other category, compared in turn."""
    others = [c for c in dict.fromkeys(categories) if c != category]
    best = difflib.get_close_matches(category, others, n=1, cutoff=cutoff)
    return best[0] if best else None


@pytest.mark.parametrize("cutoff", CUTOFFS)
def test_the_suggestion_is_the_one_comparing_every_category_gives(cutoff: float) -> None:
    facts = _facts(CATEGORIES)
    for category in CATEGORIES:
        assert facts.close_category(category, cutoff) == _reference(category, CATEGORIES, cutoff)


def test_a_misspelled_category_is_told_the_one_it_misspells() -> None:
    facts = _facts(CATEGORIES)
    assert facts.close_category("tutorals", 0.6) == "tutorials"
    assert facts.close_category("overveiw", 0.6) == "overview"
    assert facts.close_category("数据", 0.6) == "数据库"
    assert facts.close_category("refrence", 0.95) is None


def test_a_cutoff_out_of_range_is_refused_as_difflib_refuses_it() -> None:
    with pytest.raises(ValueError, match="cutoff"):
        _facts(CATEGORIES).close_category("tutorals", 1.5)


@settings(max_examples=300, deadline=None)
@given(
    categories=st.lists(st.text("abcé-e", max_size=7), min_size=1, max_size=12, unique=True),
    cutoff=st.one_of(st.sampled_from(CUTOFFS), st.floats(0, 1)),
)
@example(categories=["abc", "acb"], cutoff=0.6)  # shared characters in no common run
@example(categories=["", "a"], cutoff=0.0)  # a cutoff of 0 takes a name sharing nothing
@example(categories=["ab", "ba", "bb"], cutoff=0.5)  # a tie: the greater name
def test_the_suggestion_is_difflibs_on_any_categories(categories: list[str], cutoff: float) -> None:
    facts = _facts(categories)
    for category in categories:
        assert facts.close_category(category, cutoff) == _reference(category, categories, cutoff)


def _typo_pairs(count: int) -> list[str]:
    """`count` categories in pairs, a name and its typo (a character replaced), each pair of
    characters of its own (as names in CJK scripts are): one close category each."""
    names = []
    for i in range(count // 2):
        chars = [chr(0x4E00 + 8 * i + j) for j in range(8)]
        names += ["".join(chars[:6]), "".join(chars[:5]) + chars[7]]
    return names


def test_suggestions_cost_comparisons_linear_in_the_categories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    per_category = []
    for size in (100, 200, 400):
        names = _typo_pairs(size)
        facts = _facts(names)
        count = comparisons(monkeypatch)
        found = [facts.close_category(name, 0.6) for name in names]
        monkeypatch.undo()
        # every name is still told its typo partner
        assert found == [names[i ^ 1] for i in range(size)]
        per_category.append(count[0] / size)
    # one comparison a category, plus its matcher's setup (difflib counts that one too):
    # before, the setup and size - 1 comparisons, every category against every other
    assert per_category == [2, 2, 2]
