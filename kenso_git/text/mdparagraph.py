"""Where a Markdown paragraph ends, as CommonMark's block structure decides (pure; linear in
the body's length over offsets asked in increasing order).

A code span or an inline HTML comment runs over the lines of one paragraph only
(`text.mdcode`). A paragraph ends at a blank line and at a line that starts a block able to
interrupt it (CommonMark 4, 5): an ATX heading, a fence (a backtick fence's info string holds
no backtick), a thematic break, a setext underline in the paragraph's own container, a
block quote deeper than the paragraph's, an HTML block of types 1 to 6, a GFM table's
header row (a `|` line above a delimiter row), or a list item: a bullet or `1.` with text
after it where the paragraph's container goes on, any item where it does not (under a list
item's paragraph, a line indented less than its text). A line indented four columns past
the paragraph's text is its text whatever it looks like (indented code cannot interrupt a
paragraph), and so is a lazy line under a block quote or list item that starts no block.
A heading and a table row are blocks of one line, and no paragraph goes on below an HTML
block's first line or an empty list item.

Containers are read from the paragraph's first line (its block-quote depth, the column its
text starts at), not from the whole document: a list item's later paragraph is taken to be
in the item when it is indented by two columns or more.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_ITEM = r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]++|(?=\r?$))"
# A line's block-quote markers (group 1) and the blanks after them
_PREFIX = re.compile(r"((?:[ \t]*+>)*+)[ \t]*+")
_BLANKS = re.compile(r"[ \t]*+")
_ITEMS = re.compile(rf"(?:{_ITEM})++", re.MULTILINE)
_ONE_ITEM = re.compile(_ITEM, re.MULTILINE)
# The start of an HTML block that may interrupt a paragraph (types 1 to 6)
HTML_BLOCK = (
    r"<(?:(?:script|pre|style|textarea)(?=[ \t>]|\r?$)|!--|\?|![A-Za-z]|!\[CDATA\["
    r"|/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup"
    r"|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame"
    r"|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav"
    r"|noframes|ol|optgroup|option|p|param|search|section|source|summary|table|tbody|td"
    r"|tfoot|th|thead|title|tr|track|ul)(?=[ \t]|/?>|\r?$))"
)
# A line's text (after its quote markers and indentation) that may start a block
_BLOCK = re.compile(
    r"(?P<heading>#{1,6}(?=[ \t]|\r?$))"
    r"|(?P<fence>`{3,}+(?![^\n`]*+`)|~{3})"
    r"|(?P<thematic>(?P<rule>[-*_])[ \t]*+(?:(?P=rule)[ \t]*+){2,}\r?$)"
    r"|(?P<setext>(?:=++|-++)[ \t]*+\r?$)"
    r"|(?P<item>(?:[-+*]|(?P<number>\d{1,9})[.)])(?:[ \t]++|(?=\r?$)))"
    rf"|(?P<html>{HTML_BLOCK})"
    r"|(?P<pipe>\|)",
    re.MULTILINE | re.IGNORECASE,
)
# A line that may end the paragraph above it, found in C (`ParagraphEnds._ends` decides): a
# block quote's line, a blank line, or one whose text may start a block
_NEXT = re.compile(
    r"\n(?=[ \t]*+(?:>|\r?$|#|```|~~~|[-+*](?:[ \t]|\r?$)|[-*_=]|\d{1,9}[.)]|\||<[!?/A-Za-z]))",
    re.MULTILINE,
)
# What starts a block and holds no paragraph, after any container markers: a heading, a
# thematic break, an HTML block (what follows its first line is read as paragraphs: their
# code spans and links are read as if it were none) or an empty list item
_ONE_LINE = re.compile(
    rf"[ \t>]*+(?:(?:{_ITEM}[ \t>]*+)*(?:#{{1,6}}(?:[ \t]|\r?$)"
    rf"|(?P<rule>[-*_])[ \t]*+(?:(?P=rule)[ \t]*+){{2,}}\r?$|{HTML_BLOCK})"
    rf"|(?:{_ITEM}[ \t>]*+)++\r?$)",
    re.MULTILINE | re.IGNORECASE,
)
_PIPE = re.compile(r"[ \t>]*+\|")
# A table's delimiter row: cells of dashes (a colon at either end) between pipes, its first
# after a pipe or of two dashes at least (`- |` is a list item's)
_CELL = r"[ \t]*+:?-++:?[ \t]*+"
_DELIMITER = re.compile(
    rf"[ \t>]*+(?=[^\n]*\|)(?:\|{_CELL}|[ \t]*+:?-{{2,}}+:?[ \t]*+)(?:\|{_CELL})*+\|?[ \t]*+\r?$",
    re.MULTILINE,
)


class ParagraphEnds:
    """Where the paragraphs of `body[low:high]` end, asked at offsets that only grow: the
    answer for a paragraph is kept, and no line is read more than twice (back to the first
    line of the paragraph asked about, and on to its end)."""

    __slots__ = (
        "_body",
        "_col",
        "_cols",
        "_cut",
        "_depth",
        "_floor",
        "_from",
        "_high",
        "_html",
        "_line",
        "_low",
        "_run",
    )

    def __init__(self, body: str, low: int, high: int) -> None:
        self._body, self._low, self._high = body, low, high
        self._from, self._cut = high, high  # nothing searched yet
        self._floor = low  # no paragraph asked about later starts above it
        self._run = (0, 0, 0)  # the last run of `|` lines read: its start, end, first table row
        # the paragraph's containers: its block-quote depth, the text columns of its list
        # items (innermost last) and the innermost's (0: in none)
        self._depth, self._cols, self._col = 0, list[int](), 0
        self._line = -1  # the line they are still to be read from (-1: read)
        self._html: tuple[list[int], list[int]] = ([], [])  # HTML blocks' line starts, ends

    def first(self, at: int) -> int:
        """The offset of the first paragraph end at or after `at` (`high`: none): the line
        break before the line that ends it, or the one after the one-line block `at` is in."""
        if self._from <= at <= self._cut:
            return self._cut
        body, high = self._body, self._high
        if at < self._floor:
            self._floor = self._low
        newline = body.find("\n", at, high)
        if newline < 0:
            cut = high
        elif _blank(body, _prefix(body, newline + 1)[1], high):
            cut = newline  # a blank line follows: most paragraphs end so
        elif self._start_of(max(body.rfind("\n", 0, at) + 1, self._low)) > at:
            cut = newline  # `at` is in a block of one line
        else:
            cut = next(
                (
                    found.start()
                    for found in _NEXT.finditer(body, at, high)
                    if self._ends(found.end())
                ),
                high,
            )
        self._from, self._cut, self._floor = at, cut, cut + 1
        return cut

    def starts_block(self, line: int) -> bool:
        """Whether the line at `line` starts a block: it is the first, or the paragraph
        above ends before it (a line it could only go on with, indented four columns past
        the paragraph's text, starts none)."""
        return line <= self._low or self.first(line - 1) == line - 1

    def html_block(self, line: int, end: int) -> None:
        """Note an HTML block (a comment) from the line at `line` to `end`, found in order:
        no paragraph is read in it."""
        self._html[0].append(line)
        self._html[1].append(end)

    def item_column(self, line: int, text: int) -> int:
        """Right after `starts_block(line)` answered yes: the column of the text of the list
        item the block starting there (its text at `text`) is in, read from the paragraph
        above it: the innermost of its items the block is indented as much as (0: none)."""
        if self._line >= 0:
            self._context(self._line)
            self._line = -1
        body = self._body
        quotes = _prefix(body, line)[0]
        depth = body.count(">", line, quotes)
        indent = _width(body, quotes, text, depth)
        inside = [col for col in self._cols if col <= indent] if depth == self._depth else []
        return inside[-1] if inside else 0

    def _start_of(self, line: int) -> int:
        """The first line of the paragraph holding the line at `line` (its containers to
        be read from it), or a later line when that one is blank or a block of one line:
        back to a line that surely starts a block (below a blank line, or the floor), then
        on over the lines that may end a paragraph."""
        body, floor, high = self._body, self._floor, self._high
        start = line
        while start > floor:
            above = body.rfind("\n", 0, start - 1) + 1
            if above < floor or _blank(body, _prefix(body, above)[1], high):
                break
            start = above
        start = pos = self._begin(start, line)
        while (found := _NEXT.search(body, pos, high)) is not None and found.end() <= line:
            pos = found.end()
            if self._ends(pos):
                start = pos = self._begin(pos, line)
        return start

    def _begin(self, line: int, last: int) -> int:
        """`line` as a paragraph's first line (its containers to be read from it), or the
        first line after it when it is blank, a block of one line (a heading, a table row)
        or in an HTML block noted, looked for no further than the line after the one at
        `last`."""
        body, high = self._body, self._high
        starts, ends = self._html
        while line <= last:
            at = bisect_right(starts, line) - 1
            end = ends[at] if at >= 0 and line < ends[at] else line
            if end == line and not self._no_paragraph(line):
                break
            newline = body.find("\n", end, high)
            line = high if newline < 0 else newline + 1
        self._line = line
        return line

    def _no_paragraph(self, line: int) -> bool:
        """Whether the line at `line`, which starts a block, starts no paragraph: it is
        blank, or a block of one line."""
        return _blank(self._body, _prefix(self._body, line)[1], self._high) or self._one_line(line)

    def _one_line(self, line: int) -> bool:
        """Whether the line at `line`, which starts a block, holds no paragraph going on
        below it (`_ONE_LINE`), or is a table row."""
        body = self._body
        if _ONE_LINE.match(body, line) is not None:
            return True
        return _PIPE.match(body, line) is not None and self._table_row(line)

    def _context(self, line: int) -> None:
        """The paragraph's containers, from its first line at `line`: its block-quote
        depth, and the column its list item's text starts at (an item opened on that line,
        or the one of the line above that is not blank when this one is indented as much as
        its text)."""
        body = self._body
        quotes, text = _prefix(body, line)
        self._depth = body.count(">", line, quotes)
        col = _width(body, quotes, text, self._depth)
        cols, pos = [], text
        while (item := _ONE_ITEM.match(body, pos)) is not None:
            pos = item.end()
            cols.append(col + len(body[text:pos].expandtabs(4)))
        if not cols and col >= 2:
            above = self._column_above(line)
            cols = [above] if 0 < above <= col else []
        self._cols = cols
        self._col = cols[-1] if cols else 0

    def _column_above(self, line: int) -> int:
        """The column the text of the last line above the one at `line` that is not blank
        starts at, when it opens a list item (an empty one's would start a column past its
        marker; a lone `-` under a paragraph's line is taken for its setext underline) or
        is indented by two columns or more (0: else)."""
        body, low, high = self._body, self._low, self._high
        while line > low:
            line = body.rfind("\n", 0, line - 1) + 1
            quotes, text = _prefix(body, line)
            if not _blank(body, text, high):
                col = _width(body, quotes, text, body.count(">", line, quotes))
                items = _ITEMS.match(body, text)
                if items is None:
                    return col if col >= 2 else 0
                width = len(body[text : items.end()].expandtabs(4))
                if not _blank(body, items.end(), high):
                    return col + width
                above = _prefix(body, body.rfind("\n", 0, line - 1) + 1)[1]
                if body[text] == "-" and line > low and not _blank(body, above, high):
                    return 0  # a setext underline under a paragraph's line
                return col + width + (0 if body[items.end() - 1] in " \t" else 1)  # an empty item
        return 0

    def _ends(self, line: int) -> bool:
        """Whether the line at `line` ends the paragraph above it."""
        body, high = self._body, self._high
        quotes, text = _prefix(body, line)
        if text >= high or body[text] in "\r\n":
            return True
        if self._line >= 0:
            self._context(self._line)
            self._line = -1
        depth = body.count(">", line, quotes) if quotes > line else 0
        if depth > self._depth:
            return True  # a block quote opens inside the paragraph's
        indent = _width(body, quotes, text, depth)
        lazy = depth < self._depth or indent < self._col
        if indent - (0 if lazy else self._col) >= 4:
            return False
        block = _BLOCK.match(body, text, high)
        if block is None:
            return False
        kind = block.lastgroup
        if kind == "item":  # where the paragraph's item goes on, only one with text, 1 if numbered
            number = block["number"]
            return lazy or (
                not _blank(body, _past(_BLANKS, body, block.end()), high)
                and (number is None or int(number) == 1)
            )
        if kind == "setext":
            return not lazy or block[0].strip() == "-"  # a lazy `-`: an empty list item
        if kind == "pipe":
            newline = body.find("\n", text, high)
            return newline >= 0 and _DELIMITER.match(body, newline + 1, high) is not None
        return True

    def _table_row(self, line: int) -> bool:
        """Whether the `|` line at `line` is a table's: its header row (a delimiter row under
        it), that row, or one below it in the run of `|` lines (each run read once)."""
        start, end, rows = self._run
        if not start <= line < end:
            self._run = start, end, rows = self._pipe_run(line)
        return line >= rows

    def _pipe_run(self, line: int) -> tuple[int, int, int]:
        """(start, end, the first table row's start or `end`) of the run of `|` lines
        holding the one at `line`."""
        body, low, high = self._body, self._low, self._high
        start = line
        while start > low:
            above = body.rfind("\n", 0, start - 1) + 1
            if above < low or _PIPE.match(body, above) is None:
                break
            start = above
        pos, previous, rows = start, -1, -1
        while pos < high and _PIPE.match(body, pos) is not None:
            if rows < 0 and previous >= 0 and _DELIMITER.match(body, pos, high) is not None:
                rows = previous
            newline = body.find("\n", pos, high)
            previous, pos = pos, high if newline < 0 else newline + 1
        return start, max(pos, line + 1), pos if rows < 0 else rows


def container_end(body: str, line: int, text: int, item: int, end: int) -> int:
    """Where the containers of a block whose first line starts at `line` and whose text at
    `text` end (an HTML block has no lazy lines), `end` at the latest: the line break
    before the first line with fewer block-quote markers or, in a list item (one the line
    opens, else one whose text starts at column `item`), the first line that is not blank
    and is indented less than the item's text."""
    quotes = _prefix(body, line)[0]
    depth = body.count(">", line, quotes)
    col = _width(body, quotes, text, depth) if _ITEMS.search(body, quotes, text) else item
    if depth == 0 and col == 0:
        return end
    newline = body.find("\n", line, end)
    while newline >= 0:
        quotes, start = _prefix(body, newline + 1)
        if body.count(">", newline + 1, quotes) < depth:
            return newline
        if col and not _blank(body, start, end) and _width(body, quotes, start, depth) < col:
            return newline
        newline = body.find("\n", newline + 1, end)
    return end


def _prefix(body: str, line: int) -> tuple[int, int]:
    """Where the block-quote markers of the line at `line` end, and where its text starts."""
    found = _PREFIX.match(body, line)
    return (line, line) if found is None else (found.end(1), found.end())


def _past(pattern: re.Pattern[str], body: str, pos: int) -> int:
    """Where `pattern` (one that matches the empty string too) stops reading from `pos`."""
    found = pattern.match(body, pos)
    return pos if found is None else found.end()


def _blank(body: str, text: int, high: int) -> bool:
    """Whether a line whose text starts at `text` is blank."""
    return text >= high or body[text] in "\r\n"


def _width(body: str, start: int, end: int, quoted: int) -> int:
    """The columns of the blanks `body[start:end]` (a tab to four), less the space a
    block-quote marker takes."""
    width = len(body[start:end].expandtabs(4)) if end > start else 0
    return width - 1 if quoted and width else width
