from __future__ import annotations

from kenso_git.search.snippet import make_snippet

LINES = [f"line {i} filler words" for i in range(1, 401)]
LINES[199] = "line 200 holds the needle phrase"
TEXT = "\n".join(LINES)


def test_snippet_is_centred_on_the_first_match_and_capped() -> None:
    snip = make_snippet(TEXT, "needle phrase", 64)
    assert snip is not None
    assert snip.line_start < 200 < snip.line_end
    assert "needle phrase" in snip.text
    assert len(snip.text) <= 64 * 4
    assert snip.truncated
    assert snip.token_budget == 64
    assert snip.text.splitlines() == LINES[snip.line_start - 1 : snip.line_end]


def test_budget_is_clamped_to_32_and_1024_tokens() -> None:
    small = make_snippet(TEXT, "needle", 1)
    large = make_snippet(TEXT * 5, "needle", 100_000)
    assert small is not None and small.token_budget == 32 and len(small.text) <= 128
    assert large is not None and large.token_budget == 1024 and len(large.text) <= 4096
    assert large.truncated


def test_a_whole_large_file_is_never_returned() -> None:
    snip = make_snippet(TEXT, "", 1024)
    assert snip is not None
    assert snip.line_start == 1
    assert len(snip.text) < len(TEXT)
    assert snip.truncated


def test_small_file_comes_back_whole_and_not_truncated() -> None:
    snip = make_snippet("# Title\n\nshort body with a needle\n", "NEEDLE", 256)
    assert snip is not None
    assert (snip.line_start, snip.line_end, snip.truncated) == (1, 3, False)


def test_words_match_when_the_phrase_does_not() -> None:
    snip = make_snippet("alpha\nbeta gamma\ngamma then beta\n", "beta  gamma!", 32)
    assert snip is not None and snip.text.splitlines()[0:3] == [
        "alpha",
        "beta gamma",
        "gamma then beta",
    ]
    assert make_snippet("alpha\nbeta\n", "omega", 32) is None


def test_one_very_long_line_is_cut_around_the_match() -> None:
    line = "x" * 10_000 + " needle " + "y" * 10_000
    snip = make_snippet(line, "needle", 32)
    assert snip is not None
    assert "needle" in snip.text and len(snip.text) == 128 and snip.truncated
