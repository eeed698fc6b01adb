from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text import terms
from kenso_git.text.terms import content_expansion
from kenso_git.text.terms import expand_word
from kenso_git.text.terms import python_content_expansion


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("pre-commit", ["pre", "commit"]),
        ("my_camelCase", ["my", "camelcase"]),
        ("HTTPServer", ["http", "server"]),
        ("getHTTPResponse", ["get", "http", "response"]),
        ("OAuth2Token", ["o", "auth2token"]),
        ("CI/CD", ["ci", "cd"]),
        ("/usr/bin", ["usr", "bin"]),
        ("node.js", ["node", "js"]),
        ("v2.0", ["v2", "0"]),
        ("2024-01-01", ["2024", "01", "01"]),
        ("orderMatchingEngine", ["order", "matching", "engine"]),
        ("iOS", ["i", "os"]),
        ("README.md", ["readme", "md"]),
    ],
)
def test_compound_word_expands_to_lowercase_parts(word: str, parts: list[str]) -> None:
    assert expand_word(word) == [word, *parts]


@pytest.mark.parametrize(
    "word",
    ["3.11", "1.2.3", "192.168.1.1", "e-x", "e-mail", "abc-d", "T+2", "ABC", "_prefix", "deploy"],
)
def test_plain_or_numeric_word_is_not_expanded(word: str) -> None:
    assert expand_word(word) == [word]


def test_underscore_rule_wins_over_camel_case_without_recursion() -> None:
    assert expand_word("snake_caseWord") == ["snake_caseWord", "snake", "caseword"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("orderMatchingEngine", ["order", "matching", "engine"]),
        ("see README.md.", ["readme", "md"]),
        ("an e-mail", []),
        ("version v2.0 ships", []),
        ("the iOS app", ["i", "os"]),
        ("plain words only", []),
        ("`pre-commit` (CI/CD)", ["pre", "commit", "ci", "cd"]),
    ],
)
def test_content_expansion_matches_spec_examples(text: str, expected: list[str]) -> None:
    assert content_expansion(text) == expected


def test_content_expansion_deduplicates_across_the_text_in_first_seen_order() -> None:
    text = "pre-commit runs; then commit-msg and pre-commit again, config_file"
    assert content_expansion(text) == ["pre", "commit", "msg", "config", "file"]


def _reference_parts(word: str) -> list[str]:
    """The word rule of spec §4.3 written plainly, as a table of rules and regexes."""
    import re

    if re.fullmatch(r"\d[\d.]*", word):
        return []
    # (separator, shortest word it applies to, shortest part), tried in this order
    for sep, min_word, min_part in (("_", 0, 1), ("/", 0, 1), (".", 0, 1), ("-", 4, 2)):
        pieces = [p for p in re.split(re.escape(sep), word) if p] if sep in word else []
        if len(word) >= min_word and len(pieces) >= 2 and min(map(len, pieces)) >= min_part:
            return pieces
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", word)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    pieces = spaced.split(" ")
    return pieces if len(pieces) >= 2 else []


def _reference_expansion(text: str) -> list[str]:
    """The rule of spec §3.7 written plainly: every whitespace token, stripped, that is a
    compound candidate contributes its parts; first-seen order, no repeats."""
    import re

    _parts = _reference_parts
    out: list[str] = []
    for raw in text.split():
        token = raw.strip(".,;:!?()[]{}\"'`")
        candidate = (
            "_" in token
            or "/" in token
            or re.search(r"[a-z][A-Z]|[A-Z][A-Z][a-z]", token) is not None
            or any(
                token[i] in "-." and token[i - 1].isalpha() and token[i + 1].isalpha()
                for i in range(1, len(token) - 1)
            )
        )
        if token and candidate:
            out.extend(p.lower() for p in _parts(token) if p.lower() not in out)
    return out


_TOKEN_CHARS = "aZbY09_/-.,;:()`'\"é²Ω٣ \n\t"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_TOKEN_CHARS.strip(), min_size=1, max_size=20))
def test_expand_word_equals_the_plain_rule(word: str) -> None:
    expected = [word, *(p.lower() for p in _reference_parts(word))]
    assert expand_word(word) == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_TOKEN_CHARS, max_size=60))
def test_content_expansion_equals_the_plain_rule(text: str) -> None:
    assert content_expansion(text) == _reference_expansion(text)


@pytest.mark.parametrize(
    "text",
    [
        "Windows HTTP 2024 Übung naïve façade API ID x86 ½ 漢字 e.g. a.b -x- x- -x .NET",
        "getValue get_value CI/CD node.js co-op DataGridView XMLHttpRequest iOS macOS",
        "<xref:System.Windows.Forms.Control.Size%2A> [link](../a-b/c_d.md) `snake_case`",
    ],
)
def test_content_expansion_equals_the_plain_rule_on_real_words(text: str) -> None:
    assert content_expansion(text) == _reference_expansion(text)


# The compiled expansion (kenso_git/text/_expand.c) against the Python one, which is the
# reference: any text, including Unicode case, digit and space characters the ASCII rules
# must not mistake for theirs.
_WIDE_CHARS = (
    "aZbYzA09_/-.,;:!?()[]{}`'\"+*#<>=|~"  # ASCII: letters, separators, stripped marks
    "éÉßİıǅǆΣσςΩ²½٣́ 　 \x1c\x1f \n\t漢"  # Unicode cases, digits, spaces
)


def _compiled_or_skip() -> Callable[[str], list[str]]:
    if terms.content_expansion is python_content_expansion:
        pytest.skip("kenso_git.text._expand was not built (no C compiler at install time)")
    return terms.content_expansion


def test_compiled_expansion_is_built_where_a_c_compiler_exists() -> None:
    import shutil
    import sysconfig
    from pathlib import Path

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}): the Python expansion is the one in use")
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        pytest.skip("no Python headers (python3-dev): the Python expansion is the one in use")
    assert terms.content_expansion is not python_content_expansion, (
        "kenso_git.text._expand did not build; reinstall with `pip install -e .` "
        "and read its output"
    )


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=_WIDE_CHARS, max_size=80))
def test_compiled_expansion_equals_the_python_one(text: str) -> None:
    compiled = _compiled_or_skip()
    assert compiled(text) == python_content_expansion(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "System.Windows.Forms.Control getHTTPResponse pre-commit CI/CD __init__ a_b_c",
        "İstanbul_Straße ǅemalX naïve-façade Σigma.Σ ΩmegaΩ x\u00a0y_z a\u3000b_c",
        "(see `README.md`), [link](../a-b/c_d.md) e.g., 3.11 v2.0 1.2.3 ٣.٣ ²_x",
        "HTTPServer XMLHttpRequest OAuth2Token iOS ABCdef AbC aB a-b ab-cd abc-d ---- -x- .a.",
    ],
)
def test_compiled_expansion_equals_the_python_one_on_examples(text: str) -> None:
    compiled = _compiled_or_skip()
    assert compiled(text) == python_content_expansion(text)
    repeated = " ".join([text] * 3)  # a repeated token adds nothing new
    assert compiled(repeated) == python_content_expansion(text)


def test_compiled_expansion_rejects_a_non_string() -> None:
    compiled = _compiled_or_skip()
    with pytest.raises(TypeError, match="expects str"):
        compiled(b"bytes")  # type: ignore[arg-type]
