"""`text.mdlinks` reads link destinations and brackets as CommonMark does (6.3, 4.7, 2.4):
balanced parentheses and `<...>` destinations are links, an escaped `[` opens none, and a
destination written back by a fix parses to the path it was given."""

from __future__ import annotations

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.mdlinks import DEFINITION
from kenso_git.text.mdlinks import IMAGE
from kenso_git.text.mdlinks import LINK
from kenso_git.text.mdlinks import destination
from kenso_git.text.mdlinks import links
from kenso_git.text.mdlinks import written_destination
from kenso_git.text.parse import parse_document


def _links(body: str) -> list[tuple[str, str, str]]:
    """(kind, target, the text standing at the offset) of each link of `body`."""
    doc = parse_document("d.md", body)
    return [
        (ref.kind, ref.target, doc.body[ref.offset : ref.offset + len(ref.written or ref.target)])
        for ref in links(doc)
    ]


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # before: none of these was read as a link, so none was checked
        ("[a](nope_(x).md)", [(LINK, "nope_(x).md", "nope_(x).md")]),
        ("[a](a_(b_(c)).md#part)", [(LINK, "a_(b_(c)).md#part", "a_(b_(c)).md#part")]),
        ("[b](<no such file.md>)", [(LINK, "no such file.md", "<no such file.md>")]),
        ("![i](<no img.png>)", [(IMAGE, "no img.png", "<no img.png>")]),
        ('[t](<a b.md> "A title")', [(LINK, "a b.md", "<a b.md>")]),
        ("[e](<a\\>b.md>)", [(LINK, "a>b.md", "<a\\>b.md>")]),
        ("[p](a\\(b.md)", [(LINK, "a(b.md", "a\\(b.md")]),
        # as before
        ("[c](<nospace.md>)", [(LINK, "nospace.md", "<nospace.md>")]),
        ("[d](x.md) (aside)", [(LINK, "x.md", "x.md")]),
        ("[d](x.md)(y)", [(LINK, "x.md", "x.md")]),
    ],
)
def test_destinations_are_read_as_commonmark_reads_them(body: str, found: list) -> None:
    assert _links(body) == found


@pytest.mark.parametrize(
    "body",
    [
        "[a](nope_(x.md)",  # an unbalanced parenthesis: no link
        "[b](<a\nb.md>)",  # no line break inside `<...>`
        "[c](<a <b.md>)",  # an unescaped `<` inside `<...>`
        "[d](<open.md)",  # `<` opens a destination `>` never closes
    ],
)
def test_what_commonmark_does_not_read_as_a_link_is_none(body: str) -> None:
    assert _links(body) == []


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # before: the first two were read as links (KS022 on text shown as text)
        ("Escaped \\[esc](nope-a.md) here.", []),
        ("No opener esc](nope-a.md) here.", []),
        ("[x] and \\[esc](nope-a.md)", []),
        ("\\![i](img.png)", [(LINK, "img.png", "img.png")]),
        # an escaped backslash leaves the bracket a real opener
        ("\\\\[real](x.md)", [(LINK, "x.md", "x.md")]),
        ("\\\\![real](x.png)", [(IMAGE, "x.png", "x.png")]),
        ("[a \\[b](x.md)", [(LINK, "x.md", "x.md")]),
        ("[a \\] b](x.md)", [(LINK, "x.md", "x.md")]),
        ("[nested [brackets]](x.md)", [(LINK, "x.md", "x.md")]),
    ],
)
def test_an_escaped_or_missing_opening_bracket_opens_no_link(body: str, found: list) -> None:
    assert _links(body) == found


@pytest.mark.parametrize(
    ("line", "target", "standing"),
    [
        # before: `file` (the destination cut at the space)
        ("[s2]: <file with space.md>", "file with space.md", "<file with space.md>"),
        ('[s3]: <file with space.md> "A title"', "file with space.md", "<file with space.md>"),
        ("[s4]: plain.md 'title'", "plain.md", "plain.md"),
        ("[s5]: a_(b).md", "a_(b).md", "a_(b).md"),
    ],
)
def test_reference_definitions_read_angle_destinations_whole(
    line: str, target: str, standing: str
) -> None:
    assert _links(line + "\n") == [(DEFINITION, target, standing)]


def test_a_definition_with_an_unbalanced_destination_is_none() -> None:
    assert _links("[s]: a_(b.md\n") == []


@pytest.mark.parametrize(
    ("path", "angled", "written"),
    [
        ("plain.md", False, "plain.md"),
        ("plain.md", True, "<plain.md>"),
        ("foo bar.md", False, "<foo bar.md>"),
        ("foo_(bar).md", False, "foo_(bar).md"),
        ("foo_(bar.md", False, "foo_\\(bar.md"),
        ("foo)(bar.md", False, "foo\\)\\(bar.md"),
        ("a<b>.md", True, "<a\\<b\\>.md>"),
        ("<lead.md", False, "\\<lead.md"),
        ("<!--x.md", False, "\\<!--x.md"),  # an escaped `<` opens no HTML comment
        ("back\\slash.md", False, "back\\\\slash.md"),
        ("a (b.md", False, "<a (b.md>"),
    ],
)
def test_a_fixed_destination_is_written_so_it_parses_back(
    path: str, angled: bool, written: str
) -> None:
    assert written_destination(path, angled=angled) == written
    assert destination(written) == path
    assert _links(f"[x]({written})") == [(LINK, path, written)]


_CHARS = st.sampled_from([*"ab.-_/ ()<>\\#!é", "md"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, min_size=1, max_size=12), st.booleans())
@example(["!", "-", "-"], True)  # `<!-->` opened an HTML comment: the link was not read
@example(["?", "a"], True)  # `<?a>` a processing instruction
def test_any_path_written_by_a_fix_parses_back_to_it(parts: list[str], angled: bool) -> None:
    path = "".join(parts)
    written = written_destination(path, angled=angled)
    assert _links(f"[x]({written}) after") == [(LINK, path, written)]
    assert _links(f"[x]: {written}\n") == [(DEFINITION, path, written)]
