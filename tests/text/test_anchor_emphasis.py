"""A heading's slug keeps every `_` that is not an emphasis delimiter, as GitHub does.

The slug dropped each run of underscores at a word's edge, delimiter or not, and before
backslash escapes were read: `## The \\_\\_init\\_\\_ method`, `## The _private helper` and
`## Setting MY_PREFIX_ variable` lost underscores GitHub keeps, so KS023 reported the correct
links and `lint --fix` rewrote them to dead anchors. Underscores are now dropped only where
CommonMark's delimiter rules make them emphasis (markdown-it-py, where installed, is the
oracle).
"""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("The \\_\\_init\\_\\_ method", "the-__init__-method"),
        ("The _private helper", "the-_private-helper"),
        ("Setting MY_PREFIX_ variable", "setting-my_prefix_-variable"),
        ("The __init__ method", "the-init-method"),  # strong emphasis, as GitHub renders it
        ("snake_case and _emphasis_", "snake_case-and-emphasis"),
        ("_a *b_ c*", "a-b-c"),  # the `_` pair closes first: the `*`s are text
        ("*a _b* c_", "a-_b-c_"),  # the `*` pair closes first: the `_`s are text
        ("`_x_` and _y_", "_x_-and-y"),
        ("_a `b` c_", "a-b-c"),
        ("[_x_](y.md) z_", "x-z_"),  # a link's text is emphasis of its own
        ("__a_", "_a"),
        ("_____", "_____"),
        ("a _ b", "a-_-b"),
        ("foo_bar_", "foo_bar_"),
        ("<span>_x_</span>", "x"),
        ("&#95;x&#95;", "_x_"),  # a character reference is text, never a delimiter
    ],
)  # fmt: skip
def test_only_emphasis_delimiters_leave_the_slug(heading: str, expected: str) -> None:
    assert slug(rendered(heading)) == expected


def _commonmark_text(markdown_it: object, heading: str) -> str | None:
    """The heading's text content as CommonMark renders it, or None when no H2 is made."""
    out = markdown_it.render(f"## {heading}\n")  # type: ignore[attr-defined]
    match = re.fullmatch(r"<h2>(.*)</h2>\n", out, re.DOTALL)
    return None if match is None else html.unescape(re.sub(r"<[^>]+>", "", match[1]))


# brackets left out: an undefined `[x][y]` is text to CommonMark, a link to the slug code
_INLINE = st.text(alphabet="_*ab .!`\\()<>-", min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(_INLINE)
def test_slugs_agree_with_commonmark_on_emphasis_code_and_escapes(heading: str) -> None:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    heading = heading.strip()
    expected = _commonmark_text(markdown_it, heading) if heading else None
    if expected is None or heading.startswith("#") or heading.endswith("#"):
        return
    assert slug(rendered(heading)) == slug(expected), (heading, expected)
