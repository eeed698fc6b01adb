"""ATX headings GitHub anchors though the parser does not read them as headings: indented
one to three spaces, with a tab after the hashes, in a block quote or in a list item. Links
to them were KS023 errors. They now give anchors (the parser and chunking are unchanged)."""

from __future__ import annotations

import pytest

from kenso_git.text.anchors import _Slugger
from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import heading_anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document

BODY = (
    "# Indent heading slug page\n\n"
    " ## One space heading\n\n"
    "   ## Three space heading\n\n"
    "##\tTab heading\n\n"
    "> ## Quoted heading\n\n"
    "- ## Item heading\n\n"
    "1. ### Ordered item heading ###\n\n"
    "> - >## Nested heading\n\n"
    "    ## Indented code, not a heading\n\n"
    "-     ## Code in an item, not a heading\n\n"
    "Some paragraph text\n2) ## A lazy line, not a heading\n\n"
    "```\n  ## Fenced, not a heading\n```\n"
)
HEADINGS = {
    "indent-heading-slug-page",
    "one-space-heading",
    "three-space-heading",
    "tab-heading",
    "quoted-heading",
    "item-heading",
    "ordered-item-heading",
    "nested-heading",
}


def test_indented_tabbed_quoted_and_listed_headings_make_anchors() -> None:
    doc = parse_document("i.md", BODY)
    assert anchors(doc) == HEADINGS
    assert heading_anchors(doc) <= anchors(doc)
    # anchors only: the parser's headings (and so chunking, titles and lint) are as before
    assert [h.text for h in doc.headings] == ["Indent heading slug page"]


def test_the_anchors_are_the_headings_commonmark_renders() -> None:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    tokens = markdown_it.parse(BODY)
    slugger = _Slugger()
    expected = {
        slugger.take(slug(rendered(tokens[i + 1].content)))
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    }
    assert expected == HEADINGS


def test_repeated_nested_headings_are_numbered_in_page_order() -> None:
    doc = parse_document("r.md", "> ## Setup\n\n## Setup\n\n   ## Setup\n")
    assert anchors(doc) == {"setup", "setup-1", "setup-2"}
