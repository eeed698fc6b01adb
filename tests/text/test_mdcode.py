"""Links inside what Markdown renders as code are no links (`text.mdcode`): indented code
blocks, code spans of any backtick width, escaped brackets, for lint (`text.mdlinks`) and
the link graph (`text.links`) alike."""

from __future__ import annotations

import pytest

from kenso_git.text.links import inline_links
from kenso_git.text.mdcode import CodeSpans
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdcode import escaped
from kenso_git.text.mdlinks import code_paths
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
        # a fence in a block quote (GitHub's `> [!TIP]` notes hold code so), nested too
        "Intro.\n\n> [!TIP]\n> ```markdown\n> See [the old page](old.md).\n> ```\n",
        "> > ~~~\n> > [deep](old.md)\n> > ~~~\n",
        ">```\n>[tight](old.md)\n>```\n",
        "> ```\n> [never closed](old.md)\n",
        # raw HTML blocks that keep their text as written (CommonMark 4.6, type 1)
        "Text.\n\n<pre>\n[in pre](old.md)\n</pre>\n",
        '<PRE class="x">[one line](old.md)</PRE>\n',
        "<script>\nvar s = '[a](old.md)';\n</script>\n",
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
        # the quote ends the quoted fence: what follows it is text again
        "> ```\n> code\n\nAfter the quote [a link](old.md).\n",
        "> ```\n> code\n> ```\n> Quoted prose [a link](old.md).\n",
        "<pre>\ncode\n</pre>\n\nAfter it [a link](old.md).\n",
        "Inline <pre> is no block: [a link](old.md).\n",
        # shown inside a fence, an opening `<pre>` or quoted fence opens nothing
        "```html\n<pre>\n```\n\nAfter the fence [a link](old.md).\n",
        "```markdown\n> ```\n```\n\nAfter the fence [a link](old.md).\n",
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


@pytest.mark.parametrize(
    "body",
    [
        "Text `a\n[x](old.md) b` c.\n",  # a code span runs on over a line break (6.1)
        "Text ``a ` \n[x](old.md)`` c.\n",  # ... of two backticks, one inside
        "> `a\n> [x](old.md) b`\n",  # ... in a block quote's paragraph
        "- `a\n  [x](old.md) b`\n",  # ... in a list item's paragraph
        "1. step `one\n   [x](old.md)` two\n",
        "Text `a\n[x]: old.md\nb`.\n",  # a definition's shape inside one
        'Text `a\n<a href="old.md">x</a> b` c.\n',  # an HTML link's shape inside one
    ],
)
def test_a_link_inside_a_code_span_over_lines_is_no_link(body: str) -> None:
    assert _targets(body) == ([], [])


@pytest.mark.parametrize(
    "body",
    [
        "Text `a\n\n[x](old.md) b` c.\n",  # a blank line ends the paragraph: both are literal
        "- `a\n- [x](old.md) b`\n",  # a list item starts a paragraph of its own
        "`a\n# [x](old.md) b`\n",  # a heading is a block of its own
        "# `a\n[x](old.md) b`\n",
        "`a\n***\n[x](old.md) b`\n",  # a thematic break
        "| `a | b |\n|---|---|\n| [x](old.md) ` | c |\n",  # each table row is a block
        "\\`[x](old.md)`\n",  # an escaped backtick opens nothing; the last has no closer
        "Text <!-- a ` b -->\n[x](old.md) `c`\n",  # a backtick in an HTML comment pairs none
        "Para.\n\n    code `x\nText [x](old.md) `y`\n",  # ... nor one in indented code
        "`a\n```\ncode\n```\n[x](old.md) b`\n",  # ... nor around a fenced block
        "Para `a\n<!-- c -->\nmore [x](old.md) b`\n",  # an HTML block ends the paragraph
    ],
)
def test_a_backtick_no_run_of_its_paragraph_closes_is_literal(body: str) -> None:
    assert _targets(body) == (["old.md"], ["old.md"])


def test_code_spans_pair_runs_over_lines_of_one_paragraph() -> None:
    body = "a `b\nc` d ``e\n\nf`` g `h\ni\n` j"
    spans = CodeSpans(body)
    assert spans.inside(body.index("c")) and not spans.inside(body.index("d"))
    assert not spans.inside(body.index("f"))  # the blank line ended `e`'s paragraph
    assert spans.inside(body.index("i"))


def test_unmatched_backtick_runs_of_every_width_leave_every_link() -> None:
    # One paragraph of runs of widths 1..199 (19,900 backticks), no two alike: none closes,
    # so each link after one is a link. An opener that scanned ahead for its closer would
    # read the rest of the paragraph once per run.
    body = "".join(f"{width} " + "`" * width + f" [x](p{width}.md)\n" for width in range(1, 200))
    assert body.count("`") == 19_900
    found, graph = _targets(body)
    assert found == [f"p{width}.md" for width in range(1, 200)]
    assert graph == found
    spans = CodeSpans(body)
    assert not any(spans.inside(at) for at in range(0, len(body), 97))


def test_code_paths_are_the_code_spans_commonmark_pairs_over_lines() -> None:
    doc = parse_document("d.md", "Text `a\nb` `src/x.py` c\n\nMore `a\nb `src/y.py` c\n")
    # `a\nb` is one span, so `src/x.py` is the next; `a\nb ` is one, `src/y.py` no span
    assert [ref.target for ref in code_paths(doc)] == ["src/x.py"]
