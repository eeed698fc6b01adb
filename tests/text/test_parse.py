"""parse.py / frontmatter.py: frontmatter, headings outside fences, relations, decoding."""

from __future__ import annotations

import datetime
import textwrap

import pytest
import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.frontmatter import load_frontmatter
from kenso_git.text.parse import DEFAULT_RELATION
from kenso_git.text.parse import ENCODING
from kenso_git.text.parse import FRONTMATTER
from kenso_git.text.parse import Relation
from kenso_git.text.parse import decode
from kenso_git.text.parse import derive_category
from kenso_git.text.parse import h2_sections
from kenso_git.text.parse import normalise_target
from kenso_git.text.parse import parse_document
from tests.helpers import require_corpus


def doc_of(text: str, path: str = "docs/guide.md"):
    return parse_document(path, textwrap.dedent(text).lstrip("\n"))


# --- frontmatter ------------------------------------------------------------------------------


def test_frontmatter_fields_are_read_and_body_starts_after_the_block():
    doc = doc_of(
        """
        ---
        title: Retry guide
        category: payments
        audience: ops
        tags: [retries, cards]
        aliases:
          - backoff
        answers: ["How often?"]
        predicted_queries: [retry count]
        description: "  How payments are retried.  "
        ---

        # Payment Retries
        text
        """
    )
    assert doc.has_frontmatter
    assert doc.body.startswith("# Payment Retries")
    assert doc.body_line == 13
    assert doc.fm_title == "Retry guide"
    assert doc.h1 == "Payment Retries"
    assert doc.display_title == "Payment Retries"
    assert doc.category == "payments"
    assert doc.audience == "ops"
    assert doc.tags == ("retries", "cards")
    assert doc.aliases == ("backoff",)
    assert doc.answers == ("How often?",)
    assert doc.predicted_queries == ("retry count",)
    assert doc.description == "How payments are retried."
    assert doc.problems == ()


@pytest.mark.parametrize(
    ("tags_yaml", "expected"),
    [
        ("tags: a, b ,, c", ("a", "b", "c")),
        ("tags: [a, ' b ', '']", ("a", "b")),
        ("tags:\n  - 2024\n  - x", ("2024", "x")),
        ("tags: 7", ()),
        ("tags:", ()),
    ],
)
def test_tags_accept_a_comma_string_or_a_list(tags_yaml, expected):
    assert doc_of(f"---\n{tags_yaml}\n---\nbody\n").tags == expected


def test_list_fields_are_stringified_and_ignored_when_not_lists():
    doc = doc_of("---\naliases: [1, ' x ']\nanswers: just text\n---\nbody\n")
    assert doc.aliases == ("1", " x ")
    assert doc.answers == ()


def test_frontmatter_title_is_the_display_title_when_there_is_no_h1():
    doc = doc_of("---\ntitle: '  From YAML '\n---\nno heading here\n")
    assert doc.h1 is None
    assert doc.title == "From YAML"
    assert doc.display_title == "From YAML"


def test_display_title_falls_back_to_the_stem():
    doc = parse_document("docs/my-doc.md", "plain text only\n")
    assert doc.display_title == "my-doc"


@pytest.mark.parametrize(
    ("text", "has_frontmatter", "body"),
    [
        ("---\n---\nbody\n", True, "body\n"),
        ("---\n\n---\nbody\n", True, "body\n"),
        ("---\ntitle: x\n", False, "---\ntitle: x\n"),
        ("# Title\n---\nx\n", False, "# Title\n---\nx\n"),
        ("---\ntitle: x\n----\nbody\n", True, "-\nbody\n"),
    ],
)
def test_frontmatter_block_boundaries_follow_kenso(text, has_frontmatter, body):
    doc = parse_document("a.md", text)
    assert doc.has_frontmatter is has_frontmatter
    assert doc.body == body


def test_unclosed_frontmatter_is_reported_and_the_whole_text_is_body():
    doc = parse_document("a.md", "---\ntitle: x\n\n# Heading\n")
    assert doc.frontmatter == {}
    assert doc.h1 == "Heading"
    assert [p.line for p in doc.problems] == [1]
    assert "never closed" in doc.problems[0].message


def test_empty_frontmatter_gives_an_empty_mapping():
    doc = parse_document("a.md", "---\n\n---\n# T\n")
    assert doc.frontmatter == {}
    assert doc.problems == ()


def test_malformed_yaml_reports_the_file_line_and_still_indexes_body_and_fields():
    text = "---\ntitle: Broken\ntags: [a, b\ncategory: ops\n---\n# Real Title\n\nBody text.\n"
    doc = parse_document("x/a.md", text)
    assert len(doc.problems) == 1
    problem = doc.problems[0]
    assert problem.line == 4  # libyaml notices the unclosed list on the `category` line
    assert problem.message.startswith("frontmatter is not valid yaml")
    assert "fix it" in problem.message
    assert doc.frontmatter["title"] == "Broken"
    assert doc.category == "ops"
    assert doc.h1 == "Real Title"
    assert "Body text." in doc.body


def test_yaml_error_line_counts_from_the_top_of_the_file():
    text = "---\na: 1\nb: 2\nc: d: e\n---\nbody\n"
    assert [p.line for p in parse_document("a.md", text).problems] == [4]


def test_non_mapping_frontmatter_is_a_problem_and_falls_back_to_lines():
    doc = parse_document("a.md", "---\n- one\n- two\n---\nbody\n")
    assert doc.frontmatter == {}
    assert doc.problems[0].line == 2
    assert "not `key: value`" in doc.problems[0].message


def test_salvage_does_not_let_an_empty_key_swallow_the_next_line():
    # spec §8.7: kenso's fallback read `tags = "category: x"` here
    fields, error = load_frontmatter("tags:\ncategory: x\nbad: [\n", 2)
    assert error is not None
    assert fields["tags"] is None
    assert fields["category"] == "x"


def test_salvage_reads_block_lists_flow_lists_and_mapping_items():
    block = textwrap.dedent(
        """\
        title: "Quoted"
        tags:
        - a
          - 'b'
        aliases: [x, "y"]
        relates_to:
          - path: one.md
            relation: uses
          - two.md
        note: value # comment
        text: |
          line one
          line two
        broken: [
        """
    )
    fields, error = load_frontmatter(block, 2)
    assert error is not None
    assert fields["title"] == "Quoted"
    assert fields["tags"] == ["a", "b"]
    assert fields["aliases"] == ["x", "y"]
    assert fields["relates_to"] == [{"path": "one.md", "relation": "uses"}, "two.md"]
    assert fields["note"] == "value"
    assert fields["text"] == "line one\nline two"


@pytest.mark.parametrize(
    "block",
    [
        'title: "Hello"\nms.date: 03/23/2026\ndev_langs:\n  - "csharp"\n  - vb\n',
        "a: 1\nb: true\nc: 2024-01-02\nd: ~\ne:\nf: 'x'\n",
        "a: yes\nb: .5\nc: 0x1F\nd: No\n",
        "a: 0b101\nb: 0bda316d-bd2a\nc: 0x1G\nd: -0x_1f\ne: 0b\n",
        "no-loc: [\"a\", b, 'c''s']\nms.topic: overview #Don't change\nk: \"q \\\" \\\\ q\"\n",
        "key:\n- a\n- b\nother: c # note\n",
        "a: \"esc \\\" q\"\nb: 'it''s'\n",
        "a: [x, y]\nb: {c: d}\nc: &anchor v\n",
        "a: plain text\n  continued here\nb: -x\n",
        "k: v\n\n# comment\n\nk2: v2\n",
    ],
)
def test_fields_match_yaml_safe_load(block):
    expected = yaml.safe_load(block)
    fields, error = load_frontmatter(block, 2)
    assert error is None
    assert fields == (expected or {})


@pytest.mark.parametrize("block", ["d: x: y\n", "list:\n  - a\n - b\n"])
def test_invalid_yaml_is_never_accepted_by_the_fast_path(block):
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(block)
    assert load_frontmatter(block, 2)[1] is not None


def test_odd_yaml_types_are_stringified_for_string_fields():
    doc = doc_of("---\ntags: [2024-01-02, 3]\naliases: [1.5]\ndescription: 12\n---\nbody\n")
    assert doc.frontmatter["tags"] == [datetime.date(2024, 1, 2), 3]
    assert doc.tags == ("2024-01-02", "3")
    assert doc.aliases == ("1.5",)
    assert doc.description is None


def test_bom_and_crlf_are_handled():
    raw = "\ufeff---\r\ntitle: T\r\ntags: a, b\r\n---\r\n# Head\r\n\r\nText\r\n".encode()
    text, problems = decode(raw)
    assert problems == []
    assert not text.startswith("\ufeff")
    assert "\r\n" in text  # decode keeps line endings; parse_document normalises them
    doc = parse_document("a.md", text)
    assert doc.tags == ("a", "b")
    assert doc.h1 == "Head"
    assert doc.headings[0].line == 5
    assert "\r" not in doc.body


# --- decode -----------------------------------------------------------------------------------


def test_invalid_utf8_is_replaced_with_one_problem_on_the_first_bad_line():
    text, problems = decode(b"fine\nbad \xff here\nworse \xfe\n")
    assert text == "fine\nbad \ufffd here\nworse \ufffd\n"
    assert len(problems) == 1
    assert (problems[0].line, problems[0].column, problems[0].kind) == (2, 5, ENCODING)
    assert "byte 0xff at column 5" in problems[0].message
    assert "re-save the file as utf-8" in problems[0].message


def test_the_column_of_a_bad_byte_counts_the_characters_before_it():
    _, problems = decode("café ".encode() + b"\xe9 x\n")
    assert (problems[0].line, problems[0].column) == (1, 6)


# --- headings and fences ----------------------------------------------------------------------


def test_headings_inside_fenced_code_are_not_headings():
    doc = doc_of(
        """
        ```bash
        # install it
        ## not a section
        ```
        # Real Title
        ~~~~
        # still code
        ~~~ not a close
        ~~~~~
        ## Section
           ```
        # indented fence is code too
           ```
            ```
        # four-space indent is not a fence
        """
    )
    assert [(h.level, h.text) for h in doc.headings] == [
        (1, "Real Title"),
        (2, "Section"),
        (1, "four-space indent is not a fence"),
    ]
    assert doc.h1 == "Real Title"
    # the fence indented by 4 may be a list item's (text/fences.py): code to the next line
    # left of any item, where the heading stands, as an indented code block would be
    assert len(doc.fences) == 4


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ("```\n# x\n```\n", True),
        ("````\n# x\n```\n", False),  # closing run shorter than the opening one
        ("```\n# x\n``` info\n", False),  # a closing fence has nothing after the run
        ("```\n# x\n~~~\n", False),  # a different character
        ("``` `bad` info\n# x\n", True),  # backticks in the info string: not a fence
        ("```\n# x\n", False),  # unclosed runs to the end
    ],
)
def test_fence_closing_rules(text, closed):
    doc = parse_document("a.md", text)
    if "`bad`" in text:
        assert doc.fences == ()
        assert doc.h1 == "x"
        return
    assert doc.h1 is None
    assert (doc.fences[0][1] < len(text)) is closed


def test_heading_syntax_needs_column_zero_a_space_and_text():
    doc = parse_document("a.md", "#NoSpace\n ## indented\n####### seven\n###   spaced   \n#\n")
    assert [(h.level, h.text) for h in doc.headings] == [(3, "spaced")]


def test_heading_offsets_and_lines_point_into_the_body():
    doc = doc_of("---\nt: x\n---\nintro\n## Two\ntext\n### Three\n")
    two, three = doc.headings
    assert doc.body[two.offset : two.end] == "## Two"
    assert (two.line, three.line) == (5, 7)
    assert doc.line_of(three.offset) == 7
    section = h2_sections(doc)[0]
    assert section.full_text(doc) == "## Two\ntext\n### Three"
    assert section.content(doc) == "text\n### Three"


# --- relations --------------------------------------------------------------------------------


def test_relations_from_every_shape_keep_globs_and_empty_strings():
    doc = doc_of(
        """
        ---
        title: x
        relates_to:
          - a.md
          - path: b.md
            relation: depends_on
          - path: c.md
          - ""
          - docs/*.md
          - 42
        tags: [t]
        ---
        body
        """
    )
    assert doc.relations == (
        Relation("a.md", DEFAULT_RELATION, 4),
        Relation("b.md", "depends_on", 5),
        Relation("c.md", DEFAULT_RELATION, 7),
        Relation("", DEFAULT_RELATION, 8),
        Relation("docs/*.md", DEFAULT_RELATION, 9),
    )


def test_relations_from_a_comma_string_share_the_key_line():
    doc = doc_of("---\ntitle: x\nrelates_to: a.md, , b.md\n---\nbody\n")
    assert doc.relations == (
        Relation("a.md", DEFAULT_RELATION, 3),
        Relation("b.md", DEFAULT_RELATION, 3),
    )


def test_a_null_relation_path_is_a_problem_not_the_text_none():
    doc = doc_of("---\nrelates_to:\n  - path:\n    relation: x\n  - path: ok.md\n---\nbody\n")
    assert [r.target for r in doc.relations] == ["ok.md"]
    assert "None" not in {r.target for r in doc.relations}
    assert [p.line for p in doc.problems] == [2]
    assert "has no path" in doc.problems[0].message


def test_relations_survive_broken_yaml():
    doc = doc_of("---\nrelates_to:\n  - path: a.md\n  - b.md\nbad: [\n---\nbody\n")
    assert [(r.target, r.line) for r in doc.relations] == [("a.md", 3), ("b.md", 4)]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, ()), (5, ()), ({"path": "a.md"}, ())],
)
def test_other_relates_to_values_give_no_relations(value, expected):
    text = "---\n" + yaml.safe_dump({"relates_to": value}) + "---\nbody\n"
    assert parse_document("a.md", text).relations == expected


# --- category and targets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "frontmatter", "expected"),
    [
        ("guides/deep/b.md", {}, "deep"),
        ("b.md", {}, "general"),
        ("guides/b.md", {"category": "ops"}, "ops"),
        ("guides/b.md", {"category": ""}, "guides"),
        ("guides/b.md", {"category": 3}, "guides"),
    ],
)
def test_derive_category(path, frontmatter, expected):
    assert derive_category(path, frontmatter) == expected


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("docs/a/x.md", "../c.md", "docs/c.md"),
        ("docs/a/x.md", "./d/../e.md", "docs/a/e.md"),
        ("docs/a/x.md", "/top.md", "top.md"),
        ("docs/a/x.md", "docs/b.md", "docs/b.md"),
        ("x.md", "  ", ""),
        ("x.md", "../out.md", "../out.md"),
    ],
)
def test_normalise_target(source, target, expected):
    assert normalise_target(source, target) == expected


# --- the real corpus --------------------------------------------------------------------------


@pytest.mark.corpus
def test_fast_frontmatter_path_matches_yaml_on_the_corpus():
    corpus = require_corpus()
    for path in sorted(corpus.rglob("*.md")):
        text = decode(path.read_bytes())[0]
        doc = parse_document(path.name, text)
        if doc.has_frontmatter and not doc.problems:
            block = doc.text[4 : doc.text.find("\n---", 3)]
            expected = yaml.load(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            assert dict(doc.frontmatter) == (expected or {}), path


# --- the fast path against PyYAML, on generated blocks ---------------------------------------

_SCALAR_CHARS = "abxXY019 -_.:/#'\"[],!&*?|>%@`{}\\n"
_scalars = st.text(alphabet=_SCALAR_CHARS, min_size=1, max_size=10)
_values = st.one_of(
    _scalars,
    _scalars.map(lambda v: f'"{v}"'),
    _scalars.map(lambda v: f"'{v}'"),
    st.lists(st.one_of(_scalars, _scalars.map(lambda v: f'"{v}"')), max_size=4).map(
        lambda items: "[" + ", ".join(items) + "]"
    ),
    st.tuples(_scalars, _scalars).map(lambda pair: f"{pair[0]} #{pair[1]}"),
)
_lines = st.tuples(st.sampled_from(["title", "tags", "ms.date", "no-loc", "a_b"]), _values).map(
    lambda kv: f"{kv[0]}: {kv[1]}"
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_lines, min_size=1, max_size=5))
def test_whatever_the_fast_path_accepts_yaml_reads_the_same(lines: list[str]) -> None:
    from kenso_git.text.frontmatter import _fast_load

    block = "\n".join(lines) + "\n"
    fast = _fast_load(block)
    if fast is None:
        return  # PyYAML decides
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert fast == yaml.load(block, Loader=loader), block


def test_docs_site_frontmatter_takes_the_fast_path() -> None:
    """Flow lists, trailing comments, \\" escapes and ids like 0bda... are common in docs
    sites' frontmatter; reading them must not need PyYAML (~40 ms to import per process)."""
    from kenso_git.text.frontmatter import _fast_load

    block = (
        'title: "{} Escape \\"Sequence\\""\nno-loc: ["UserControl", Label]\n'
        "ms.topic: overview #Don't change\nms.assetid: 0bda316d-bd2a-43aa-ac73-342453303169\n"
        'helpviewer_keywords:\n  - "XAML [XAML Services], quotation mark (\\")"\n'
    )
    fast = _fast_load(block)
    assert fast is not None
    assert fast == yaml.safe_load(block)


_item_lines = st.tuples(
    st.sampled_from(["", "  ", "    "]),
    st.sampled_from([" ", "  "]),
    st.lists(
        st.tuples(st.sampled_from(["path", "relation", "yes", "a.b"]), _values),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from([0, 1, 2, 3]),
).map(
    lambda t: "\n".join(
        f"{t[0] if i == 0 else t[0] + ' ' * (len(t[1]) + 1 - 2 + t[3])}"
        f"{'-' + t[1] if i == 0 else '  '}{key}: {value}"
        for i, (key, value) in enumerate(t[2])
    )
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_item_lines, min_size=1, max_size=4))
def test_list_items_that_are_mappings_read_as_yaml_does(items: list[str]) -> None:
    """`- path: x` / `relation: y` entries (relates_to's usual form) take the fast path."""
    from kenso_git.text.frontmatter import _fast_load

    block = "relates_to:\n" + "\n".join(items) + "\ntitle: T\n"
    fast = _fast_load(block)
    if fast is None:
        return  # PyYAML decides
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert fast == yaml.load(block, Loader=loader), block


def test_relates_to_mappings_take_the_fast_path() -> None:
    from kenso_git.text.frontmatter import _fast_load

    block = "relates_to:\n  - path: a.md\n    relation: uses\n  - b.md\n"
    assert _fast_load(block) == yaml.safe_load(block)


@pytest.mark.parametrize(
    "block",
    [
        "title: First\ntags: [a, b]\ntitle: Second",  # the fast path's shape
        "title: First\ntags:\n  - a\ntitle: Second\nweights: {x: 1}",  # PyYAML's
    ],
)
def test_a_key_given_twice_is_reported_and_the_last_value_kept(block: str) -> None:
    """PyYAML (and kenso) keep the last value of a repeated key without a word, so the
    first title was lost in silence; KS020 now names the second key's line."""
    doc = parse_document("docs/d.md", f"---\n{block}\n---\n# Doc\n\nBody.\n")
    assert doc.frontmatter["title"] == "Second"
    second = 2 + block.split("\n").index("title: Second")  # the file line of the second key
    assert [(p.line, p.kind) for p in doc.problems] == [(second, FRONTMATTER)]
    assert "`title` is given twice" in doc.problems[0].message
