"""A heading in a list item's content indented 4 spaces (the mkdocs style: `- Download`,
a blank line, `    ### Install step`) is an h3 in CommonMark and on GitHub, with the anchor
`#install-step`: list content up to 3 past the item's content column, not indented code.
Anchors took it for code, so KS023 flagged the working link and `--fix` and `--diff`
rewrote it to `#install-steps`, another heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.text.anchors import _Slugger
from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run

GUIDE = (
    "# Guide\n\n"
    "## Install steps\n\n"
    "- Download the archive\n\n"
    "    ### Install step\n\n"
    "    Unpack it into the tools folder and run the installer once.\n\n"
    "See [the step](#install-step) for details.\n"
)
BODY = (
    "# List content\n\n"
    "- Item\n\n    ### Four deep\n\n"
    "1. Ordered\n\n    ### Past the number\n\n"
    "- Outer\n\n    - Inner\n\n        ### Under inner\n\n"
    "          ### Code in inner, no heading\n\n"
    "- Item\n  text\n    ### Without a blank line\n\n"
    "- Item\nlazy line\n    ### After a lazy line\n\n"
    "- Item\n\n        ### Code in the item, not a heading\n\n"
    "Top paragraph\n    ### Paragraph text, not a heading\n\n"
    "    ### Indented code, not a heading\n\n"
    "-     code item\n\n    ### After code in the item\n\n"
    "- Tabbed\n\n\t### Tab deep\n"
)
ANCHORS = {
    "list-content",
    "four-deep",
    "past-the-number",
    "under-inner",
    "without-a-blank-line",
    "after-a-lazy-line",
    "after-code-in-the-item",
    "tab-deep",
}


def test_headings_in_list_content_indented_four_make_anchors() -> None:
    assert anchors(parse_document("l.md", BODY)) == ANCHORS


def test_the_anchors_are_the_headings_commonmark_renders() -> None:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    tokens = markdown_it.parse(BODY)
    slugger = _Slugger()
    expected = {
        slugger.take(slug(rendered(tokens[i + 1].content)))
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    }
    assert expected == ANCHORS


def test_lint_leaves_a_link_to_a_list_content_heading_alone(repo: Path) -> None:
    write(repo, {"guide.md": GUIDE})
    commit_all(repo, "guide")
    found = run(repo, "--format", "concise", "--select", "KS023", ".")
    assert found.returncode == 0, found.stdout + found.stderr
    assert "KS023" not in found.stdout
    diff = run(repo, "--diff", "--select", "KS023", ".")
    assert "#install-steps" not in diff.stdout, diff.stdout
    assert (repo / "guide.md").read_text() == GUIDE
