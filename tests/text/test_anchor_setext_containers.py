"""Setext headings and list items (CommonMark 4.3, 5.2): a list item's paragraph is
underlined only from inside the item. Under its lazy line a `---` is a thematic break and a
`===` more of the paragraph, where anchors gave the lazy line a slug of its own."""

from __future__ import annotations

import pytest

from kenso_git.text.anchors import _Slugger
from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document

BODY = (
    "# Setext in list items\n\n"
    "- Download the archive\nand unpack it\n---\n\n"
    "- Fetch the key\nand import it\n===\n\n"
    "> Quoted start\nlazy quoted line\n---\n\n"
    "- Item paragraph\nwith a lazy line\n  ---\n\n"
    "Plain section\n-------------\n"
)
ANCHORS = {"setext-in-list-items", "item-paragraph-with-a-lazy-line", "plain-section"}


def test_a_lazy_line_of_a_list_item_is_no_setext_heading() -> None:
    assert anchors(parse_document("s.md", BODY)) == ANCHORS


def test_the_anchors_are_the_headings_commonmark_renders() -> None:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    tokens = markdown_it.parse(BODY)
    slugger = _Slugger()
    expected = {
        slugger.take(slug(rendered(tokens[i + 1].content.replace("\n", " "))))
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    }
    assert expected == ANCHORS
