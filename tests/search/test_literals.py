"""The literals regex_search's prefilter requires: every RE2 match contains each of them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.search.regex.grep import PatternError
from kenso_git.search.regex.grep import compile_pattern
from kenso_git.search.regex.literals import required_literals

PIECES = ["a", "b", "ab", ".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$", "\\", "{2}"]
PIECES += ["{1,}", "\\.", "\\w", "\\d", "[^a]", "(?i)", "(?:", "\\x61", "\\pL", "-", "\n", "é"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10), st.text("ab.\né-A", max_size=30))
def test_every_match_contains_every_required_literal(pieces: list[str], text: str) -> None:
    source = "".join(pieces)
    try:
        pattern = compile_pattern(source)
    except PatternError:
        return
    if pattern.matches(text):
        data = text.encode("utf-8")
        assert all(lit in data for lit in required_literals(source)), source


def test_ordinary_patterns_give_their_fixed_text() -> None:
    assert required_literals(r"[Cc]onfigur\w+ file") == (b"onfigur", b" file")
    assert required_literals(r"^## See also") == (b"## See also",)
    assert required_literals(r"v[0-9]+\.[0-9]+") == (b"v", b".")
    assert required_literals("ab*c") == (b"a", b"c")
    assert required_literals(r"\p{Greek}bar") == (b"bar",)
    # alternation, case folding and quoting: no literal is certain, every doc is searched
    assert required_literals("TODO|FIXME") == ()
    assert required_literals("(?i)todo") == ()
    assert required_literals(r"\Qa.b\E") == ()
