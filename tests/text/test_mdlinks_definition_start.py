"""`text.mdlinks` reads a reference definition only where CommonMark does (4.7), as
markdown-it-py's `commonmark` preset does (tester t49e #2): at the start of a paragraph,
never inside one, and with its destination on the next line only when that line does not
start a block that ends the paragraph (a thematic break, an HTML block, a heading, a
fence, a list item, a quote). Since 9631e31 `[options]:` then `--verbose` inside a
paragraph, `[Summary]:` then `***` and `[Output]:` then `<div>` were definitions (a KS022
error on text); a same-line `[x]: y.md` inside a paragraph, or one followed by an unclosed
title, was one before that too."""

from __future__ import annotations

from itertools import pairwise
from urllib.parse import unquote

import pytest
from hypothesis import assume
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kenso_git.text.mdlinks import DEFINITION
from kenso_git.text.mdlinks import links
from kenso_git.text.mdlinks import scan_links
from kenso_git.text.parse import parse_document

_MD = MarkdownIt("commonmark")


def _ours(body: str) -> list[str]:
    """The targets of the reference definitions `links` reads, in order."""
    return [ref.target for ref in links(parse_document("d.md", body)) if ref.kind == DEFINITION]


def _commonmark(body: str) -> list[str]:
    """The destinations of markdown-it's reference definitions (the first of a label),
    percent-escapes undone."""
    env: dict = {}
    _MD.parse(body, env)
    refs = sorted(env.get("references", {}).values(), key=lambda ref: ref["map"][0])
    return [unquote(ref["href"]) for ref in refs]


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # the repro: none of these is a definition (before: each one was, a KS022 error)
        ("The tool prints its usage, with these flags\n[options]:\n--verbose\n", []),
        ("Release notes follow\n[Status]:\nbeta\n", []),
        ("[Summary]:\n***\n", []),
        ("[Summary]:\n___\n", []),
        ("[Summary]:\n  * * *\n", []),
        ("[Summary]:\n---\n", []),
        ("[Output]:\n<div>\nHello\n</div>\n", []),
        ("[Output]:\n</DIV>\n", []),
        ("[Output]:\n<!-- note -->\n", []),
        ("[Output]:\n<script>\n", []),
        ("[Output]:\n<?php\n", []),
        ("[Output]:\n<![CDATA[\n", []),
        ("[Output]:\n```\ncode\n```\n", []),
        ("[Output]:\n~~~\n", []),
        ("[Output]:\n# Heading\n", []),
        ("[Output]:\n> quote\n", []),
        ("[Output]:\n- item\n", []),
        ("[Output]:\n-\n", []),
        ("[Output]:\n2. item\n", []),
        ("*\n[x]: y.md\n", ["y.md"]),
        ("1.\n[x]: y.md\n", ["y.md"]),
        # inside a paragraph, on one line too (the old code read these)
        ("Some text\n[x]: y.md\n", []),
        ("Some text\n[x]: y.md\n[z]: z.md\n", []),
        ("- an item\n[x]: y.md\n", []),
        ("> a quote\n[x]: y.md\n", []),
        ("<div>\n[x]: y.md\n", []),
        ("text\n    more text\n[x]: y.md\n", []),
        ("\n===\n[x]: y.md\n", []),
        # a title that does not end the line: no definition
        ("[d]: x.md (\n", []),
        ('[d]: x.md "t" junk\n', []),
        # a definition where a paragraph starts: as before
        ("[x]: y.md\n", ["y.md"]),
        ("Some text\n\n[x]: y.md\n", ["y.md"]),
        ("# Heading\n[x]: y.md\n", ["y.md"]),
        ("Title\n---\n[x]: y.md\n", ["y.md"]),
        ("Title\n===\n[x]: y.md\n", ["y.md"]),
        ("***\n[x]: y.md\n", ["y.md"]),
        ("```\ncode\n```\n[x]: y.md\n", ["y.md"]),
        ("text\n\n    code\n[x]: y.md\n", ["y.md"]),
        ("<!-- links -->\n[x]: y.md\n", ["y.md"]),
        ("<!--\nlinks\n-->\n[x]: y.md\n", ["y.md"]),
        ("[a]: a.md\n[b]: b.md\n", ["a.md", "b.md"]),
        ("[a]:\n  a.md\n[b]: b.md\n", ["a.md", "b.md"]),
        ('[a]: a.md "t"\n[b]: b.md\n', ["a.md", "b.md"]),
        ('[a]: a.md\n"t"\n[b]: b.md\n', ["a.md", "b.md"]),
        ('[d]: x.md "t"\n', ["x.md"]),
        ('[d]: x.md "a\nb"\n', ["x.md"]),
        # a next line no block starts on: the destination
        ("[a]:\n--\n", ["--"]),
        ("[a]:\n<span>\n", ["span"]),
        ("[a]:\n<divx>\n", ["divx"]),
        ("[a]:\n``x\n", ["``x"]),
        ("[a]:\n#x\n", ["#x"]),
    ],
)
def test_a_definition_is_read_where_commonmark_reads_one(body: str, found: list) -> None:
    assert _commonmark(body) == found
    assert _ours(body) == found


# Lines of the shapes above. No `<div>` or `<span>`: an HTML block of kind 6 or 7 runs to
# the next blank line, over a heading or a thematic break, and `text.mdlinks` does not
# follow one (a definition there, after such a line, is read as before); no comment over
# lines (`text.mdcode` reads a fence inside one as a fence).
_LINE = st.sampled_from(
    [
        "[a]:",
        "[b]: b.md",
        "[c]: c.md 'title'",
        "[d]: d.md (",
        "  [e]:",
        "e.md",
        "  f.md",
        "--verbose",
        "***",
        "---",
        "===",
        "- - -",
        "<!-- c -->",
        "```",
        "~~~",
        "# Heading",
        "> quote",
        "- item",
        "-",
        "2. item",
        "    indented",
        "'title'",
        "Some text",
        "",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_LINE, max_size=12))
@example(["Some text", "[a]:", "--verbose"])
@example(["[a]:", "***"])
@example(["<!-- c -->", "[b]: b.md"])
@example(["[b]: b.md", "    indented", "[b]: b.md"])
def test_definitions_are_what_markdown_it_reads(lines: list[str]) -> None:
    # a label's line then one opening with `[`: CommonMark reads that line as the
    # destination; `text.mdlinks` never does (a definition may start there)
    assume(not any(a.endswith("]:") and b.lstrip()[:1] == "[" for a, b in pairwise(lines)))
    # a `===` after a quote's or a list item's text is that text's (lazy, CommonMark 5.1):
    # `text.mdlinks` reads it as an underline
    # (an item opened by a bare `-` whose text is on the next line too)
    assume("===" not in lines or not {"> quote", "- item", "2. item", "-"} & set(lines))
    # nor does it follow a list item's content: an indented line after an item is read as
    # code, after a blank line too
    items = [n for n, line in enumerate(lines) if line in {"- item", "2. item", "-"}]
    assume(not items or "    indented" not in lines[items[0] :])
    # a label of its own on each line: markdown-it keeps only a label's first definition
    # (after a heading: a `---` first would open front matter)
    labelled = (line.replace("[", f"[{n}", 1) for n, line in enumerate(lines))
    body = "# Page\n" + "".join(line + "\n" for line in labelled)
    assert _ours(body) == _commonmark(body)


def test_a_long_run_of_definitions_is_read_in_order() -> None:
    # each line asks after the one before: the walk back stops at the last one answered
    body = "".join(f"[r{n}]: p{n}.md\n" for n in range(20_000))
    found, _stopped = scan_links(parse_document("d.md", body), cap=30_000)
    assert [ref.target for ref in found] == [f"p{n}.md" for n in range(20_000)]
    assert _ours("text\n" + body) == []
