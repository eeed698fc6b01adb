"""`bound_highlight`: a highlight of at most `HIGHLIGHT_CHARS` characters comes back as is;
a longer one (a huge token, a padded table) is shortened, its marks kept paired."""

from __future__ import annotations

import pytest

from kenso_git.search.highlightcap import ELLIPSIS
from kenso_git.search.highlightcap import HIGHLIGHT_CHARS
from kenso_git.search.highlightcap import MARK_CLOSE
from kenso_git.search.highlightcap import MARK_OPEN
from kenso_git.search.highlightcap import bound_highlight
from kenso_git.search.preview import clean_highlight
from tests.search.test_huge_token_highlight import BLOB
from tests.search.test_huge_token_highlight import is_balanced


def test_a_highlight_within_the_budget_is_returned_as_is() -> None:
    text = "...a " + "<mark>word</mark> padded   " * 75 + "x" * 18
    assert len(text) == HIGHLIGHT_CHARS
    assert bound_highlight(text) is text


def test_a_huge_token_is_cut_to_its_ends_and_the_match_kept() -> None:
    shown = bound_highlight(f"{BLOB} <mark>widgets</mark> end")
    assert shown == f"zq{'a' * 28}...{'a' * 30} <mark>widgets</mark> end"


def test_a_marked_huge_token_keeps_its_marks() -> None:
    shown = bound_highlight(f"see {MARK_OPEN}gizmo-{'c-' * 50_000}c{MARK_CLOSE} done")
    assert shown == f"see {MARK_OPEN}gizmo-{'c-' * 12}...{'-c' * 15}{MARK_CLOSE} done"


@pytest.mark.parametrize("shift", range(22))
def test_a_cut_never_falls_inside_a_mark_pair(shift: int) -> None:
    text = "x" * shift + " " + " ".join(f"{MARK_OPEN}term{i:04}{MARK_CLOSE}" for i in range(400))
    shown = bound_highlight(text)
    assert len(shown) <= HIGHLIGHT_CHARS
    assert shown.endswith(f"{MARK_CLOSE}{ELLIPSIS}")
    assert is_balanced(shown)


def test_the_window_starts_shortly_before_a_late_first_match() -> None:
    text = "lead " * 2_000 + f"{MARK_OPEN}hit{MARK_CLOSE} " + "tail " * 2_000
    shown = bound_highlight(text)
    assert len(shown) <= HIGHLIGHT_CHARS and is_balanced(shown)
    assert shown.startswith(f"{ELLIPSIS}lead lead")
    assert shown.index(f"{MARK_OPEN}hit{MARK_CLOSE}") <= HIGHLIGHT_CHARS // 4 + len(ELLIPSIS)
    assert shown.endswith(f"tail{ELLIPSIS}")


def test_a_marked_phrase_longer_than_the_budget_is_cut_inside_its_pair() -> None:
    shown = bound_highlight(MARK_OPEN + "word " * 1_000 + MARK_CLOSE)
    assert len(shown) <= HIGHLIGHT_CHARS and is_balanced(shown)
    assert shown.startswith(f"{MARK_OPEN}word word") and shown.endswith(ELLIPSIS + MARK_CLOSE)


def test_stray_marks_of_the_text_are_paired_when_cut() -> None:
    shown = bound_highlight(f"{MARK_CLOSE}{'x' * 5_000} {MARK_OPEN}open {'y' * 5_000}")
    assert shown == f"{'x' * 30}...{'x' * 30} {MARK_OPEN}open {'y' * 30}...{'y' * 30}{MARK_CLOSE}"
    assert bound_highlight(MARK_CLOSE * 400) == ""


def test_space_padding_of_a_wide_table_shrinks_to_one_space() -> None:
    row = "| <mark>Name</mark>" + " " * 3_000 + "| Type" + " " * 3_000 + "|\n"
    assert bound_highlight(row) == "| <mark>Name</mark> | Type |\n"


def test_every_highlight_clean_highlight_builds_is_bounded() -> None:
    """The three ways a highlight is made: FTS5's snippet kept, and rebuilt from the content
    (a snippet marking nothing, a chunk too large for snippet())."""
    content = f"Intro. {BLOB} widgets end"
    token = f"zq{'a' * 28}...{'a' * 30} <mark>widgets</mark> end"
    for snippet, expected in [
        (f"{BLOB} <mark>widgets</mark> end", token),
        ("no marks", f"Intro. {token}"),
        ("...", f"Intro. {token}"),
    ]:
        assert clean_highlight(snippet, content, ["widgets"]) == expected
