"""Links inside what Markdown renders as code are no links (`text.mdcode`): indented code
blocks, code spans of any backtick width, escaped brackets, for lint (`text.mdlinks`) and
the link graph (`text.links`) alike."""

from __future__ import annotations

import pytest

from kenso_git.text.links import inline_links
from kenso_git.text.mdcode import CodeSpans
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdcode import escaped
from kenso_git.text.mdlinks import links
from kenso_git.text.parse import parse_document


def _targets(body: str) -> tuple[list[str], list[str]]:
    """What lint and the link graph read as link targets of `body`."""
    doc = parse_document("docs/page.md", body)
    return [r.target for r in links(doc)], [t.removeprefix("./") for t in inline_links(doc)]


@pytest.mark.parametrize(
    "body",
    [
        "# Title\n\nSome text.\n\n    See [the guide](old.md) for details.\n",
        "    [first line](old.md)\n",
        "Text.\n\n\tTabbed [code](old.md)\n",
        "Double ``[install](old.md)`` span.\n",
        "Triple ```a `[x](old.md)` b``` span.\n",
        "Escaped \\[install\\](old.md) brackets.\n",
    ],
)
def test_a_link_written_as_code_or_escaped_is_no_link(body: str) -> None:
    assert _targets(body) == ([], [])


@pytest.mark.parametrize(
    "body",
    [
        "- item\n\n    continued with [a link](old.md)\n",  # a list item's paragraph
        "1. step\n   more\n\n    [still the step](old.md)\n",
        "Para\n    [no blank line before](old.md)\n",  # indented code cannot interrupt it
        "A lone ` tick, then [a link](old.md).\n",  # a run with no closer is literal
        "Code `x` then [a link](old.md) and ``y``.\n",
        "Two backslashes \\\\[a link](old.md).\n",  # the backslash is escaped, not the ]
    ],
)
def test_a_link_beside_code_is_still_a_link(body: str) -> None:
    assert _targets(body) == (["old.md"], ["old.md"])


def test_code_blocks_merge_fences_and_indented_blocks_in_order() -> None:
    body = "# T\n\n```\n[a](a.md)\n```\n\nText.\n\n    code\n\n    more\n\nAfter.\n"
    doc = parse_document("d.md", body)
    blocks = code_blocks(doc)
    assert len(blocks) == 2
    assert body[blocks[1][0] : blocks[1][1]] == "    code\n\n    more"


def test_code_spans_pair_runs_of_the_same_width() -> None:
    line = "a ``b ` c`` d `e` f ` g"
    spans = CodeSpans(line)
    assert spans.inside(line.index("b"))
    assert spans.inside(line.index("c"))
    assert not spans.inside(line.index("d"))
    assert spans.inside(line.index("e"))
    assert not spans.inside(line.index("g"))  # the last tick has no closer


def test_escaped_counts_the_backslashes() -> None:
    assert escaped("\\]", 1) and not escaped("\\\\]", 2) and escaped("\\\\\\]", 3)
    assert not escaped("]", 0)
