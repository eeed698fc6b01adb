"""Indented code blocks are found in one pass (`text.mdcode.code_blocks`): a list item
followed by lines of blanks asked, at each blank line, whether the line above the blank run
was a list item, and read back over the whole run each time (20,000 lines: 31 s)."""

from __future__ import annotations

from kenso_git.text.links import inline_links
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdlinks import links
from kenso_git.text.parse import parse_document


class _CountingBody(str):
    """A body that counts the characters read from it one at a time (`body[i]`)."""

    reads = 0

    def __getitem__(self, key):  # type: ignore[override]
        type(self).reads += 1
        return str.__getitem__(self, key)


def test_a_list_item_over_many_blank_indented_lines_is_read_once() -> None:
    lines = 1000
    text = "- item\n" + "    \n" * lines + "x [a](old.md)\n"
    doc = parse_document("docs/page.md", text)
    counted = doc._replace(body=_CountingBody(doc.body))
    _CountingBody.reads = 0
    assert code_blocks(counted) == ()
    assert _CountingBody.reads < 10 * len(text)  # before: ~2,500,000
    assert [r.target for r in links(doc)] == ["old.md"]
    assert inline_links(doc) == ["./old.md"]


def test_blank_runs_after_an_indented_line_and_after_text_are_each_read_once() -> None:
    # the run's answer is kept for the next blank line of the same run: an indented line
    # above continues a list item, a line of text does not (the indented line is code)
    text = "- item\n\n    cont\n" + "    \n" * 500 + "text\n\n    code [a](old.md)\n"
    doc = parse_document("docs/page.md", text)
    counted = doc._replace(body=_CountingBody(doc.body))
    _CountingBody.reads = 0
    blocks = code_blocks(counted)
    assert _CountingBody.reads < 10 * len(text)
    assert [text[start:end] for start, end in blocks] == ["    code [a](old.md)"]
    assert links(doc) == []
