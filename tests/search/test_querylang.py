"""The query language: words, phrases, negation, filters, errors that name the token."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.lang.querylang import MAX_PATTERN_BYTES
from kenso_git.search.lang.querylang import MAX_QUERY_CHARS
from kenso_git.search.lang.querylang import Filter
from kenso_git.search.lang.querylang import QuerySyntaxError
from kenso_git.search.lang.querylang import Term
from kenso_git.search.lang.querylang import parse
from kenso_git.search.lang.querylang import render_reference
from tests.search.helpers import topics_kb

NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z
REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "query-language.md"


def test_words_phrases_and_negations_become_terms() -> None:
    query = parse('deploy "canary checks" -rollback -"old guide"', now=NOW)
    assert query.terms == (
        Term("deploy"),
        Term("canary checks", phrase=True),
        Term("rollback", negated=True),
        Term("old guide", phrase=True, negated=True),
    )
    assert query.positive_terms() == query.terms[:2]


def test_every_filter_and_alias_parses_to_its_canonical_field() -> None:
    query = parse(
        'in:"docs/my api" path:guides ext:.MDX type:md tag:Auth tags:x category:ops cat:y '
        'modified:7d since:2025-12-31 size:>10k size:<=2mb re:"fn \\w+" -ext:txt',
        now=NOW,
    )
    names = [f.name for f in query.filters]
    assert names == [
        "in",
        "in",
        "ext",
        "ext",
        "tag",
        "tag",
        "category",
        "category",
        "modified",
        "modified",
        "size",
        "size",
        "re",
        "ext",
    ]
    assert query.of("in")[0].value == "docs/my api"
    assert query.of("ext")[0].value == "mdx"
    modified = query.of("modified")
    assert modified[0].number == int(NOW) - 7 * 86400
    assert modified[1].number == int(NOW) - 86400
    assert [(f.op, f.number) for f in query.of("size")] == [(">", 10240), ("<=", 2 << 20)]
    assert query.of("re")[0].value == "fn \\w+"
    assert query.filters[-1] == Filter("ext", "txt", negated=True)


def test_escaped_quote_inside_a_phrase_is_a_literal_quote() -> None:
    assert parse('"say \\"hi\\""', now=NOW).terms == (Term('say "hi"', phrase=True),)


@pytest.mark.parametrize(
    ("text", "token", "column"),
    [
        ('deploy colour:"red"', 'colour:"red"', 8),
        ("deploy modified:someday", "modified:someday", 8),
        ("modified:yesterday", "modified:yesterday", 1),
        ("a size:big", "size:big", 3),
        ('in:"docs"tail', 'in:"docs"t', 1),
        ('x in:"open folder', 'in:"open folder', 3),
        ('alpha -"release notes', '-"release notes', 7),
        ("since:2026-13-45", "since:2026-13-45", 1),
    ],
)
def test_a_bad_token_is_an_error_naming_it_and_its_column(
    text: str, token: str, column: int
) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse(text, now=NOW)
    err = caught.value
    assert isinstance(err, UsageError)
    assert (err.token, err.column) == (token, column)
    assert repr(token) in err.message and f"column {column}" in err.message
    assert err.hint


def test_length_token_count_and_pattern_size_are_capped() -> None:
    with pytest.raises(QuerySyntaxError, match="longer than"):
        parse("a" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(QuerySyntaxError, match="more than 64"):
        parse(" ".join(["w"] * 65))
    with pytest.raises(QuerySyntaxError, match=f"longer than {MAX_PATTERN_BYTES} bytes"):
        parse('re:"' + "a" * (MAX_PATTERN_BYTES + 1) + '"')


def test_the_reference_page_is_generated_from_the_grammar() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == render_reference(), (
        "docs/query-language.md is stale: run "
        "`python -m kenso_git.search.lang.querylang > docs/query-language.md`"
    )


@pytest.mark.parametrize("query", ["pay\x00ment", '"a\x00b"', "tag:a\x00b", 'word re:"x\x00"'])
def test_a_nul_byte_anywhere_is_refused_by_name(query: str) -> None:
    with pytest.raises(QuerySyntaxError) as refused:
        parse(query)
    assert "NUL byte" in refused.value.message and refused.value.column == query.index("\x00") + 1
    assert refused.value.hint is not None and "remove the NUL byte" in refused.value.hint


@pytest.mark.parametrize(
    ("text", "words", "prefixes"),
    [
        ("How to: Position a ToolTip", ("How", "to:", "Position", "a", "ToolTip"), ("to:",)),
        ("x:Shared Attribute", ("x:Shared", "Attribute"), ("x:",)),
        ("uses xref:System.Windows.Media", ("uses", "xref:System.Windows.Media"), ("xref:",)),
        ("deploy colour:red -Walkthrough:", ("deploy", "colour:red"), ("colour:", "Walkthrough:")),
        # a filter's name with nothing after its colon: a question asked in words (#31's
        # k6 docs: "Chromium browser type: chromium.connectOverCDP" was an error)
        ("Browser type: chromium", ("Browser", "type:", "chromium"), ("type:",)),
        ("ext:", ("ext:",), ("ext:",)),
        ("the size: -in: x", ("the", "size:", "x"), ("size:", "in:")),
    ],
)
def test_a_name_that_is_no_filter_is_read_as_a_word(
    text: str, words: tuple[str, ...], prefixes: tuple[str, ...]
) -> None:
    """Prose has colons ("How to:", "xref:System.IO"): only the known fields are filters
    (#28); the page names what was read as a word, so a typo in a field is still seen."""
    query = parse(text, now=NOW)
    assert tuple(t.text for t in query.positive_terms()) == words
    assert query.filters == ()
    assert query.read_as_words == prefixes


@pytest.mark.parametrize(
    ("text", "words", "seen"),
    [
        # a command-line flag in a question is the word the page documents, not "-all"
        ("npm ls --all", ("npm", "ls", "--all"), ("--all",)),
        (
            "npm install --save-dev typescript",
            ("npm", "install", "--save-dev", "typescript"),
            ("--save-dev",),
        ),
        ("what is the -g flag", ("what", "is", "the", "-g", "flag"), ("-g",)),
        # a quote never closed is a character of the question, and the words after it count
        (
            'How do I set a 16" wide form?',
            ("How", "do", "I", "set", "a", '16"', "wide", "form?"),
            ('"',),
        ),
        ('a 16" by 12" form', ("a", '16"', "by", '12"', "form"), ('"',)),
        ('a 16" wide in:"docs"', ("a", '16"', "wide"), ('"',)),
        ("error -12 and -1", ("error", "-12", "and", "-1"), ("-12", "-1")),
        ('"unterminated quote in question', ("unterminated", "quote", "in", "question"), ('"',)),
    ],
)
def test_flags_and_a_stray_quote_in_a_question_are_words(
    text: str, words: tuple[str, ...], seen: tuple[str, ...]
) -> None:
    """An agent asks in words: `npm ls --all` dropped the page about `ls` (every page
    holding "all" was excluded), and `a 16" wide form` was the error "the quote is never
    closed". The page lists what was read as a word instead."""
    query = parse(text, now=NOW)
    assert tuple(t.text for t in query.terms if not t.negated) == words
    assert not any(t.negated for t in query.terms)
    assert query.read_as_words == seen


def test_negation_and_phrases_still_work_beside_them() -> None:
    query = parse('deploy -rollback -"old guide" --force "exact phrase"', now=NOW)
    assert query.terms == (
        Term("deploy"),
        Term("rollback", negated=True),
        Term("old guide", phrase=True, negated=True),
        Term("--force"),
        Term("exact phrase", phrase=True),
    )


def test_a_quoted_flag_finds_the_page_a_bare_one_excludes(tmp_path: Path) -> None:
    """As the language reference and the tool's description say: `-Recurse` bare is a
    negation and drops the page that documents it; quoted, it is the word to find."""
    kb = topics_kb(
        tmp_path,
        {
            "gci.md": "# Get-ChildItem\n\nLists items. With -Recurse it walks every folder.\n",
            "gi.md": "# Get-Item\n\nGets one item, as Get-ChildItem lists them.\n",
        },
    )
    bare = kb.agent_search(SearchRequest("Get-ChildItem -Recurse"))
    assert [h["path"] for h in bare["results"]] == ["docs/gi.md"]
    quoted = kb.agent_search(SearchRequest('Get-ChildItem "-Recurse"'))
    assert [h["path"] for h in quoted["results"]] == ["docs/gci.md"]


def test_a_stray_quote_costs_linear_time() -> None:
    import time

    # one phrase opened and never closed, every later quote escaped inside it: read again
    # without phrases, not re-scanned from each quote
    text = ('x "' + 'a\\"' * 1000)[:MAX_QUERY_CHARS]
    started = time.perf_counter()
    with pytest.raises(QuerySyntaxError, match="more than 64"):
        parse(text, now=NOW)
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize("value", ["*.md", "md,txt", "ext:md", "md/x", "."])
def test_an_ext_that_is_no_file_extension_is_refused(value: str) -> None:
    # each matched nothing, silently: no file name ends with ".*.md" or ".md,txt"
    with pytest.raises(QuerySyntaxError, match="not a file extension"):
        parse(f"ext:{value}")


@pytest.mark.parametrize("value", ["md", ".mdx", "MD", "markdown", "c++", "tar_gz"])
def test_a_file_extension_is_taken(value: str) -> None:
    assert [f.value for f in parse(f"ext:{value}").filters] == [value.lower().lstrip(".")]
