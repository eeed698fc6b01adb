"""`text.mdlinks` reads the link forms CommonMark allows beyond one line and quoted titles
(6.3, 4.7), and decodes character references in destinations (2.5), as markdown-it-py's
`commonmark` preset does: a title in parentheses, a title or a destination on the next line,
a reference definition whose destination is on the line after its label, `&amp;` and
`&#x26;` in a destination. Each of these was text to lint (no KS022, no KS024 fix)."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kenso_git.text.mdlinks import DEFINITION
from kenso_git.text.mdlinks import LINK
from kenso_git.text.mdlinks import destination
from kenso_git.text.mdlinks import links
from kenso_git.text.mdlinks import written_destination
from kenso_git.text.parse import parse_document

_MD = MarkdownIt("commonmark")


def _ours(body: str) -> list[tuple[str, str, str]]:
    """(kind, target, the text standing at the offset) of each link `links` reads."""
    doc = parse_document("d.md", body)
    return [
        (ref.kind, ref.target, doc.body[ref.offset : ref.offset + len(ref.written or ref.target)])
        for ref in links(doc)
    ]


def _commonmark(body: str) -> list[str]:
    """The destinations markdown-it reads in `body`: its links' and images' in order, then
    its reference definitions' (percent-escapes undone: it writes hrefs escaped)."""
    env: dict = {}
    out: list[str] = []

    def walk(tokens: list) -> None:
        for token in tokens:
            if token.type == "link_open":
                out.append(token.attrGet("href"))
            elif token.type == "image":
                out.append(token.attrGet("src"))
            if token.children:
                walk(token.children)

    walk(_MD.parse(body, env))
    out.extend(ref["href"] for ref in env.get("references", {}).values())
    return [unquote(href) for href in out]


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # before: none of these was read, so a dead one had no KS022 and a renamed one no fix
        ("[p](old.md (paren title))", [(LINK, "old.md", "old.md")]),
        ("[p](old.md (a \\(b\\)))", [(LINK, "old.md", "old.md")]),
        ('[n](missing2.md\n"title") ok', [(LINK, "missing2.md", "missing2.md")]),
        ('[t](x.md "a title\nover two lines")', [(LINK, "x.md", "x.md")]),
        ("[t](x.md 'one\n  two')", [(LINK, "x.md", "x.md")]),
        ("[t](x.md (one\ntwo))", [(LINK, "x.md", "x.md")]),
        ('[t](x.md "escaped \\" quote")', [(LINK, "x.md", "x.md")]),
        ("[d](\nx.md)", [(LINK, "x.md", "x.md")]),
        ("[d](x.md\n)", [(LINK, "x.md", "x.md")]),
        ("[d](<a b.md>\n  'title'\n)", [(LINK, "a b.md", "<a b.md>")]),
        ("[ref3]:\n  missing3.md\n", [(DEFINITION, "missing3.md", "missing3.md")]),
        ('[r]:\n  x.md "t"\n', [(DEFINITION, "x.md", "x.md")]),
        ('[r]:\n  x.md\n  "t"\n', [(DEFINITION, "x.md", "x.md")]),
        ("[r]: x.md (t)\n", [(DEFINITION, "x.md", "x.md")]),
        ("[r]:   \n<a b.md>\n", [(DEFINITION, "a b.md", "<a b.md>")]),
        # as before
        ('[q](x.md "t")', [(LINK, "x.md", "x.md")]),
        ("[r]: x.md\n", [(DEFINITION, "x.md", "x.md")]),
    ],
)
def test_link_forms_over_lines_and_paren_titles_are_read(body: str, found: list) -> None:
    assert _ours(body) == found
    assert [target for _, target, _ in found] == _commonmark(body)


@pytest.mark.parametrize(
    "body",
    [
        "[a](x.md (t(u)))",  # an unescaped `(` in a parenthesised title
        '[a](x.md\n\n"t")',  # a blank line ends the paragraph
        '[a](x.md "t\n\nu")',
        '[a](<x.md>"t")',  # no space before the title
        '[a](x.md\n> "t")',  # a quote, a heading, a list item start a block
        "[a](\n>q.md)",
        '[a](x.md\n# "t")',
        '[a](x.md "t\n# h")',
        '[a](x.md "t\n- item")',
        "[r]:\n\n  x.md\n",
        "[r]:\n> x.md\n",
        "[r]:\n  x.md junk\n",  # more than a title after the destination
        "[r]: x.md junk\n",
    ],
)
def test_what_commonmark_does_not_read_as_a_link_stays_text(body: str) -> None:
    assert _ours(body) == []
    assert _commonmark(body) == []


@pytest.mark.parametrize(
    ("body", "target"),
    [
        # before: `c&amp;d.md`, and `c&` with the fragment `x26;d.md`
        ("[a](c&amp;d.md)", "c&d.md"),
        ("[b](c&#x26;d.md)", "c&d.md"),
        ("[b](c&#X26;d.md)", "c&d.md"),
        ("[c](c&#38;d.md)", "c&d.md"),
        ("[d](c&#35;d.md)", "c#d.md"),  # a `#` by reference still starts the fragment
        ("[e](<a&nbsp;b.md>)", "a\xa0b.md"),
        ("[f](\\&amp;.md)", "&amp;.md"),  # an escaped `&` starts no reference
        ("[g](&amp.md)", "&amp.md"),  # no `;`: no reference
        ("[h](&ampx;.md)", "&ampx;.md"),  # not a name HTML defines
        ("[i](&#0;.md)", "&#0;.md"),  # a code point markdown-it leaves as written
        ("[r]: c&amp;d.md\n", "c&d.md"),
        ("![i](c&#x26;d.png)", "c&d.png"),
    ],
)
def test_character_references_in_a_destination_are_decoded(body: str, target: str) -> None:
    found = _ours(body)
    assert [ref_target for _, ref_target, _ in found] == [target]
    assert _commonmark(body) == [target]
    written = body[body.index("](") + 2 if "](" in body else body.index(": ") + 2 :]
    assert written.startswith(found[0][2])  # the text the fix replaces is what stands there


@pytest.mark.parametrize(
    ("path", "written"),
    [
        ("c&d.md", "c&d.md"),
        ("x&amp;y.md", "x\\&amp;y.md"),
        ("x&#38;y.md", "x\\&#38;y.md"),
        ("a&b;c.md", "a\\&b;c.md"),
    ],
)
def test_a_fix_writes_an_ampersand_so_it_reads_back(path: str, written: str) -> None:
    assert written_destination(path, angled=False) == written
    assert destination(written) == path
    assert _ours(f"[x]({written})") == [(LINK, path, written)]
    assert _commonmark(f"[x]({written})") == [path]


_CHARS = st.sampled_from([*"ab.&#;x26() \\", "amp", "#x26", "&lt;", "md"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, min_size=1, max_size=12), st.booleans())
def test_any_path_with_references_written_by_a_fix_parses_back(
    parts: list[str], angled: bool
) -> None:
    path = "".join(parts)
    written = written_destination(path, angled=angled)
    assert _ours(f"[x]({written}) after") == [(LINK, path, written)]
    assert _ours(f"[x]: {written}\n") == [(DEFINITION, path, written)]


@pytest.mark.parametrize(
    ("piece", "count", "found"),
    [
        ('[a](x "', 100_000, 0),  # titles never closed: each read to the next quote
        ("[a](x (", 100_000, 0),
        ("[a](x \"[b](y '[c](z (", 30_000, 0),
        ('[a](x "t\n', 100_000, 0),  # ... over lines
        ("[a](\n", 100_000, 0),
        ("[r]:\n", 100_000, 0),
        ('[a](x "](y "](z ', 30_000, 0),
        ('[a](x "t") ', 4_000, 4_000),
    ],
)
def test_long_pathological_bodies_are_read_once(piece: str, count: int, found: int) -> None:
    """Each `](` and `]:` is tried once, and a title never closed is read at most to the
    next quote (512 characters at most): the scan stays linear (by hand: under 0.1 s for
    each of these 0.5-0.9 MB bodies)."""
    assert len(_ours(piece * count)) == found


def test_a_long_title_of_escapes_is_read_once() -> None:
    body = '[a](x "' + "\\" * 300_000 + '"' + ")" + ' [b](y.md "t")'
    assert [target for _, target, _ in _ours(body)] == ["y.md"]
