"""Python-Markdown's `toc` ids (MkDocs' anchors): the slug, the `_1` suffixes, and the work
a page of many like headings costs.

The expected ids are what Python-Markdown 3.11 (`markdown.Markdown(extensions=["toc",
"attr_list"])`) renders for these headings, checked once by hand against the library.
"""

from __future__ import annotations

import pytest

from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import dialect_anchors
from kenso_git.text.parse import parse_document
from kenso_git.text.tocslug import TocIds
from kenso_git.text.tocslug import toc_slug


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Users & UsersFile", "users-usersfile"),
        ("Example of Depth & X-Forwarded-For", "example-of-depth-x-forwarded-for"),
        ("Ünïcödé Héading", "unicode-heading"),
        ("日本語", ""),
        ("  -- a -- b --  ", "-a-b-"),
        ("a_b__c", "a_b__c"),
        ("Version 1.2.3", "version-123"),
        ("C++ & C#", "c-c"),
        ("Tab\there", "tab-here"),
    ],
)
def test_toc_slug_is_python_markdowns(text: str, expected: str) -> None:
    assert toc_slug(text) == expected


def test_toc_ids_number_repeats_as_python_markdown_does() -> None:
    ids = TocIds(["bar"])
    taken = [ids.take(base) for base in ["x_5", "x_5", "x_5", "x", "x", "x_1", "", "", "bar"]]
    assert taken == ["x_5", "x_6", "x_7", "x", "x_1", "x_2", "_1", "_2", "bar_1"]


class _CountedSet(set[str]):
    """A set that counts the membership tests asked of it."""

    asked = 0

    def __contains__(self, item: object) -> bool:
        _CountedSet.asked += 1
        return super().__contains__(item)


def test_many_like_headings_cost_linear_work() -> None:
    # Python-Markdown's own loop tries x_6, x_7 ... afresh for each heading: n*n/2 tests
    ids = TocIds()
    counted = _CountedSet()
    ids.taken = counted
    n = 5_000
    for _ in range(n):
        ids.take("x_5")
    for _ in range(n):
        ids.take("y")
    assert len(counted) == 2 * n
    assert _CountedSet.asked <= 8 * n


def test_a_page_offers_mkdocs_anchors_only_when_asked() -> None:
    doc = parse_document(
        "p.md",
        "# Title\n\n## Users & UsersFile\n\n## Setup {#install}\n\n## Install\n\n"
        "## Install\n\n## resourceAttributes\n\n## resourceAttributes\n",
    )
    github, toc, _hugo = dialect_anchors(doc)
    assert "users--usersfile" in github and "resourceattributes-1" in github
    # `{#install}` takes `install` first: the headings after it are install_1, install_2
    assert {"users-usersfile", "install_1", "install_2", "resourceattributes_1"} <= toc
    assert not toc & github
    assert anchors(doc) == github
    assert anchors(doc, toc=True) == github | toc
