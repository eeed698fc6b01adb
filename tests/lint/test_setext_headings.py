"""KS004 (missing-title) and KS008 (no-h2) on setext headings: `Title` over `=====` is an
H1 and `Section` over `-----` an H2, in CommonMark and on GitHub, but the search index (as
kenso's) titles and splits a page by ATX headings only. So the findings stay, and say so:
"no H1 heading" was untrue of such a page and did not tell its writer what to change.

A `---` after a blank line is a thematic break, and the frontmatter's `---` lines are
neither; those still leave a page without a title or an H2. The search index's chunking is
unchanged (kenso compatibility): it splits and titles by ATX headings only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.text.anchors import setext_levels
from kenso_git.text.parse import parse_document
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import lint_texts
from tests.lint.test_cli import run

LONG = "More prose about zebras and their stripes in the wild. " * 12 + "\n"
SETEXT = (
    "Setext title of page\n====================\n\n"
    "Preamble text that is long enough for the preamble rule to be happy here.\n\n"
    "Setext section about zebras\n---------------------------\n\n" + LONG
)


def _findings(text: str) -> list[tuple[str, str]]:
    report = lint_texts({"docs/lf.md": text})
    found = [(v.rule, v.message) for v in report.violations() if v.rule in ("KS004", "KS008")]
    return sorted(found)


def test_setext_h1_and_h2_are_named_with_the_atx_form_to_write() -> None:
    (title, title_says), (h2, h2_says) = _findings(SETEXT)
    assert (title, h2) == ("KS004", "KS008")
    assert "setext-style" in title_says and "`# Title`" in title_says
    assert "no H1 heading" not in title_says
    assert "setext-style" in h2_says and "`## Section`" in h2_says


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a `---` after a blank line is a thematic break, `===` there a paragraph's text
        ("Intro paragraph.\n\n---\n\n" + LONG, ["KS004", "KS008"]),
        ("Intro paragraph.\n\n===\n\n" + LONG, ["KS004", "KS008"]),
        # the frontmatter's `---` lines are no underline
        ("---\ntags: [a]\n---\n" + LONG, ["KS004", "KS008"]),
        ("---\ntags: [a]\n---\nTitle here\n==========\n\n" + LONG, ["KS004 setext", "KS008"]),
        # under a list item, `---` is a thematic break; in fenced code, nothing
        ("Title here\n==========\n\n- item\n---\n\n" + LONG, ["KS004 setext", "KS008"]),
        ("```\nTitle\n=====\nSection\n-------\n```\n\n" + LONG, ["KS004", "KS008"]),
        ("Only a section\n--------------\n\n" + LONG, ["KS004", "KS008 setext"]),
        # a list item's lazy line is no heading's text: the `---` is a thematic break, the
        # `===` more of the item's paragraph (they said to turn the item into a heading)
        (
            "Title here\n==========\n\n- get it\nand unpack it\n---\n\n" + LONG,
            ["KS004 setext", "KS008"],
        ),
        ("- get the archive\nand unpack it\n===\n\n" + LONG, ["KS004", "KS008"]),
        ("> a quoted line\nand a lazy one\n===\n\n" + LONG, ["KS004", "KS008"]),
        # underlined from inside the item, the item's paragraph is a heading
        ("- Item title\nlazy\n  ==========\n\n" + LONG, ["KS004 setext", "KS008"]),
    ],
)
def test_thematic_breaks_frontmatter_and_code_are_not_setext_headings(
    text: str, expected: list[str]
) -> None:
    said = [rule + (" setext" if "setext" in message else "") for rule, message in _findings(text)]
    assert said == expected


LAZY = (  # a paragraph opened in a list item or block quote, and lines after it
    "- a\nb\n---\n",
    "- a\nb\n===\n",
    "1. a\n  b\n---\n",
    "> a\nb\n---\n",
    "> a\nb\n===\n",
    "- > a\nb\n===\n",
    "- *a* b\nc\n---\n",
    "- a\nb\n  ---\n",
    "- a\n  ---\n",
    "- a\n    ---\n",
    "1. a\nb\n   ===\n",
    "1. a\nb\n  ---\n",
    "-    a\nb\n  ---\n",
    "-     a\nb\n  ---\n",
    "- a\n  - b\n  c\n    ---\n",
    "- a\n  - b\n  c\n  ---\n",
    "- ## h\nb\n---\n",
    "* b\n  ===\n===\n---\n",
    "***\n    c\na\n  ---\n",
    "a\n    c\n---\n",
    "a\n2) b\nc\n---\n",
)


def test_setext_levels_match_commonmark() -> None:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    for text in (SETEXT, "a\n\n---\n", "a\n---\nb\n===\n", "- a\n---\n", "> a\n---\n", *LAZY):
        tags = {t.tag for t in markdown_it.parse(text) if t.type == "heading_open"}
        assert setext_levels(parse_document("x.md", text)) == {int(t[1]) for t in tags}, text


def test_lint_of_a_setext_page_in_a_repository_names_the_setext_headings(repo: Path) -> None:
    write(repo, {"docs/lf.md": SETEXT})
    commit_all(repo, "page")
    found = run(repo, "--format", "concise", "--select", "KS004,KS008", "docs/lf.md")
    assert found.returncode == 0, found.stderr  # warnings: the commit goes through
    lines = found.stdout.splitlines()
    assert any("KS004" in line and "`# Title`" in line for line in lines), found.stdout
    assert any("KS008" in line and "`## Section`" in line for line in lines), found.stdout
