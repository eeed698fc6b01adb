"""HTML comments are read where CommonMark reads them (`text.mdcode.CodeSpans.comments`), in
one pass with the code spans: a `<!--` written inside a code span is code and opens nothing,
an inline `<!--` its paragraph does not close is text, and an HTML block's comment runs to
the line holding `-->` or to the end of its list item or block quote. Comments were cut out
before code spans were looked at, so a page that wrote `` `<!--` `` lost every link after
it to lint, `--fix` and the link graph."""

from __future__ import annotations

import re

import pytest

from kenso_git.text.links import inline_links
from kenso_git.text.mdlinks import links
from kenso_git.text.mdlinks import regions
from kenso_git.text.parse import parse_document


def _targets(body: str) -> tuple[list[str], list[str]]:
    """What lint and the link graph read as link targets of `body`."""
    doc = parse_document("docs/page.md", body)
    return [r.target for r in links(doc)], [t.removeprefix("./") for t in inline_links(doc)]


LINKED = [
    # the report's page: `<!--` in a code span hid the link two paragraphs on
    "# Comment syntax guide page\n\nWrite `<!--` to open an HTML comment in a Markdown page."
    "\n\nSee [the missing page](old.md) for more.\n",
    "Use ``<!-- x`` and `-->` then [a link](old.md).\n",
    # an inline `<!--` its paragraph does not close is text
    "A comment opens with <!-- and this paragraph never closes it.\n\n[a link](old.md) -->\n",
    "Text <!-- never closed, then [a link](old.md)\n",
    "Text <!-- over\n\nparagraphs --> and [a link](old.md)\n",
    # an HTML block's comment ends with its list item, or its block quote
    "- an item\n  <!--\n- [a link](old.md) in the next item -->\n",
    "> <!-- a quoted comment\n\n[a link](old.md) -->\n",
    "\\<!-- escaped, [a link](old.md) -->\n",
]

HIDDEN = [
    "Text <!-- [x](old.md) --> more.\n",
    "Text <!-- over\n[x](old.md) two lines --> more.\n",
    "<!--\n[x](old.md)\n\n[y](old.md)\n-->\n",  # an HTML block runs over blank lines
    "<!-- a --> [x](old.md)\n",  # ... and to the end of the line holding `-->`
    "`code` <!-- [x](old.md) -->\n",
    "- item\n  <!--\n  [x](old.md)\n  -->\n",
    "Para `a\n<!-- b` [x](old.md) -->\n",  # a comment block ends the paragraph: no span
]


@pytest.mark.parametrize("body", LINKED)
def test_a_link_after_a_comment_opening_that_opens_none_is_a_link(body: str) -> None:
    assert _targets(body) == (["old.md"], ["old.md"])


@pytest.mark.parametrize("body", HIDDEN)
def test_a_link_inside_an_html_comment_is_no_link(body: str) -> None:
    assert _targets(body) == ([], [])


@pytest.mark.parametrize("body", LINKED + HIDDEN)
def test_the_cases_are_what_commonmark_renders(body: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").render(body)
    assert re.findall(r'<a href="([^"]*)"', html) == _targets(body)[0]


def test_a_comment_is_cut_out_of_the_link_regions_only_outside_code_spans() -> None:
    body = "A `<!--` span, <!-- a comment -->, and `-->`.\n"
    doc = parse_document("d.md", body)
    comment = body.index("<!-- a")
    assert list(regions(doc)) == [(0, comment), (body.index(", and"), len(body))]
