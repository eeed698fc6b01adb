"""Three headings whose anchors differed from CommonMark and GitHub, so KS023 flagged a
working link and `--fix` rewrote it to a wrong one:

* `## Array[\\](x) form`: the `\\]` is escaped, so there is no link; the slug keeps the `x`.
* `## Use [a][b] here` with no `[b]:` definition is text: the slug keeps the `b`.
* `> Quoted title` over `> ============`: a setext heading in a block quote has an anchor.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.text.anchors import _Slugger
from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import heading_anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = (
    "# Page\n\n"
    "## Use [a][b] here\n\n"
    "## Array[\\](x) form\n\n"
    "> Quoted title\n> ============\n\n"
    "Links: [one](#use-ab-here) [two](#arrayx-form) [three](#quoted-title)\n"
)
BODY = (
    "# Slug holes\n\n"
    "## Use [a][b] here\n\n"
    "## Ref [c][d] defined\n\n"
    "## Collapsed [e][] kept\n\n"
    "## Ref [f][in code] undefined\n\n"
    "## Array[\\](x) form\n\n"
    "## Paren [y](a\\)b) end\n\n"
    "> Quoted title\n> ============\n\n"
    "> Quoted, then a lazy line\nunderlined outside\n-------\n\n"
    "> > Deep quote\n> > ---\n\n"
    "> - Item in a quote\n>   ---\n\n"
    "[D]: d.md\n[e]: e.md\n\n"
    "```\n[in code]: x.md\n```\n"
)


def _commonmark_anchors(text: str) -> set[str]:
    markdown_it = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    tokens = markdown_it.parse(text)
    slugger, out = _Slugger(), set[str]()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[i + 1].children or []
            shown = "".join(t.content for t in inline if t.type in ("text", "code_inline"))
            out.add(slugger.take(slug(shown.replace("\n", " "))))
    return out


def test_escapes_undefined_references_and_quoted_setext_headings_give_github_anchors() -> None:
    doc = parse_document("p.md", BODY)
    assert anchors(doc) == _commonmark_anchors(BODY)
    assert {"use-ab-here", "ref-c-defined", "arrayx-form", "quoted-title"} <= anchors(doc)
    assert heading_anchors(doc) <= anchors(doc)


def test_rendered_reads_an_escaped_bracket_and_knows_the_labels_it_is_given() -> None:
    assert rendered("Array[\\](x) form") == "Array[](x) form"
    assert rendered("Use [a][b] here", frozenset()) == "Use [a][b] here"
    assert rendered("Use [a][b] here", frozenset({"b"})) == "Use a here"
    assert rendered("Use [a][b] here") == "Use a here"  # no labels given: any is defined


def test_lint_passes_links_to_those_headings_and_fix_leaves_them(repo: Path) -> None:
    write(repo, {"p.md": PAGE})
    commit_all(repo, "page")
    found = run(repo, "--format", "concise", "--select", "KS023", ".")
    assert "KS023" not in found.stdout, found.stdout
    assert found.returncode == 0, found.stderr
    run(repo, "--fix", "--select", "KS023", ".")
    assert (repo / "p.md").read_text() == PAGE
