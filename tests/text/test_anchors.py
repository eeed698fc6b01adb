"""GitHub's heading slugs, repeats, explicit ids and HTML anchors (text/anchors.py, #30)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import heading_anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Install Steps", "install-steps"),
        ("What's new in 2.0?", "whats-new-in-20"),
        ("The `run` command", "the-run-command"),
        ("Use [the API](api.md) now", "use-the-api-now"),
        ("snake_case and _emphasis_", "snake_case-and-emphasis"),
        ("**Bold** text", "bold-text"),
        ("'\\<assembly name>' not opened", "assembly-name-not-opened"),
        ("A <kbd>Ctrl</kbd> key", "a-ctrl-key"),
        ("Café Crème", "café-crème"),
        ("  Two  spaces ", "two--spaces"),
        ("C# &amp; F#", "c--f"),
        ("1.2.3 Release", "123-release"),
    ],
)  # fmt: skip
def test_slug_follows_github(heading: str, expected: str) -> None:
    assert slug(rendered(heading.strip())) == expected


def _anchors(body: str) -> frozenset[str]:
    return anchors(parse_document("a.md", body))


def test_repeated_headings_get_numbered_suffixes() -> None:
    found = _anchors("# Options\n\n## Options\n\n## Options\n\n## Options-1\n")
    # github-slugger: the 4th heading's own slug `options-1` is taken, so it becomes -1-1
    assert {"options", "options-1", "options-2", "options-1-1"} <= found


def test_explicit_ids_and_html_anchors_count() -> None:
    body = (
        "# Title {#custom}\n\n## Closing hashes ##\n\n"
        "<a name=\"legacy\"></a>\n<div id='single'>x</div>\n<span id=bare>y</span>\n"
    )
    found = _anchors(body)
    assert {"custom", "title", "closing-hashes", "legacy", "single", "bare"} <= found


def test_setext_headings_count_but_fenced_and_commented_ones_do_not() -> None:
    body = (
        "Setext Title\n============\n\nA second one\n------------\n\n"
        '```\n# not a heading\n```\n\n<!-- <a name="hidden"></a> -->\n'
        "- list item\n---\n"
    )
    found = _anchors(body)
    assert {"setext-title", "a-second-one"} <= found
    assert "not-a-heading" not in found
    assert "hidden" not in found
    assert "list-item" not in found


_LINE = st.sampled_from(
    [
        "# A",
        "# A",
        "## A-1",
        "# a {#a}",
        "# B {#x}",
        "### C ###",
        "# `code` and [link](x.md)",
        "#",
        "# !!!",
        "A\n===",
        "a-1\n---",
        '<a name="a"></a>',
        "```\n# in code\n```",
        "<!-- # commented -->",
        "text",
        "",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=14))
def test_the_headings_first_try_is_part_of_every_anchor(lines: list[str]) -> None:
    """`heading_anchors` (what lint's KS023 tries before reading the body) never offers a
    fragment `anchors` does not: a fragment it passes is one GitHub makes."""
    doc = parse_document("d.md", "\n\n".join(lines) + "\n")
    assert heading_anchors(doc) <= anchors(doc)


def test_the_headings_first_try_is_part_of_every_anchor_on_the_docs_corpus() -> None:
    from tests.helpers import require_corpus

    root = require_corpus()
    for path in sorted(root.rglob("*.md")):
        doc = parse_document(path.name, path.read_text(encoding="utf-8", errors="replace"))
        assert heading_anchors(doc) <= anchors(doc), path
