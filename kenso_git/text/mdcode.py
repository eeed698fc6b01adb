"""What Markdown renders as code, so that nothing inside it is read as a link (pure; linear
in the body's length).

* Code blocks: the parser's fenced blocks, and indented code blocks (lines indented by four
  spaces or a tab after a blank line, where the line before that blank is neither a list
  item nor indented: there the indentation continues the list item, CommonMark 4.4).
* Code spans: a run of backticks opens a span that the next run of the same length in its
  paragraph closes, on its line or a later one; a run with no such closer is literal
  (CommonMark 6.1). A double-backtick span holding a single backtick is code, which
  counting backticks by parity got wrong; a span over a line break is code, which pairing
  runs line by line got wrong (a link inside one was a KS022).
* A `]` after an odd number of backslashes is a literal bracket, not a link's text ending.

`text.links` (the link graph) and `text.mdlinks` (lint's links) both step over these, so
the stored graph and the linter agree.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.text.parse import Document

# a blank line (or the body's start) followed by a line indented as code
_INDENTED_START = re.compile(r"\A(?= {0,3}\t| {4})|\n[ \t]*\n(?= {0,3}\t| {4})")
_INDENTED_LINE = re.compile(r" {0,3}\t| {4}")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_TICKS = re.compile("`+")
# A line that ends a paragraph, so that no code span runs over it (after any indentation,
# block-quote markers and list markers): a block of one line (`whole`: blank, a heading, a
# fence, a thematic break or setext underline, a table row, an HTML comment closed on it),
# or one that starts a block (a list item, an HTML comment block). `_LINE` reads the line a
# search starts in; `_NEXT` finds the next such line in C, or a block quote's first line
# (`quote`: it starts a block under a line of no quote, which `_Cuts` checks).
_LEAD = r"[ \t>]*+"
_ITEM = r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]++|(?=\r?$))"
_ONE_LINE = (
    r"\r?$|#{1,6}(?:[ \t][^\n]*+)?$|(?:```|~~~)[^\n]*+$|\|[^\n]*+$|<!--[^\n]*?-->[^\n]*+$"
    r"|(?:(?:[-*_][ \t]*+){3,}|=++[ \t]*+|-++[ \t]*+)\r?$"
)
_ENDS = (
    rf"{_LEAD}(?:(?P<whole>{_ONE_LINE})"
    rf"|{_ITEM}(?:{_LEAD}{_ITEM})*+{_LEAD}(?P<opens>{_ONE_LINE})?|<!--)"
)
_LINE = re.compile(_ENDS, re.MULTILINE)
_NEXT = re.compile(rf"\n(?:{_ENDS}|(?P<quote>(?=[ \t]*+>)))", re.MULTILINE)
_QUOTED = re.compile(r"[ \t]*+>")


def code_blocks(doc: Document) -> tuple[tuple[int, int], ...]:
    """The [start, end) ranges of the body in fenced or indented code blocks, in order
    (kept for the last body asked: its links and its code spans both step over them)."""
    body = doc.body
    if "\n    " not in body and "\t" not in body and not body.startswith("    "):
        return doc.fences
    kept = _BLOCKS[0] if _BLOCKS else None  # read once: another thread may replace it
    if kept is not None and kept[0] is body:
        return kept[1]
    found = _indented_blocks(doc)
    _BLOCKS[:] = [(body, found)]
    return found


_BLOCKS: list[tuple[str, tuple[tuple[int, int], ...]]] = []


def _indented_blocks(doc: Document) -> tuple[tuple[int, int], ...]:
    """`code_blocks` of a body with an indented line: its fences and indented blocks."""
    body = doc.body
    blocks = list(doc.fences)
    fence_starts = [start for start, _ in doc.fences]
    covered = 0  # indented blocks found so far end here
    above = _LineAbove(body)
    for match in _INDENTED_START.finditer(body):
        start = match.end()
        if start < covered or _in_fence(doc.fences, fence_starts, start):
            continue
        if above.continues_a_list(match.start()):
            continue
        end = _indented_end(body, start)
        blocks.append((start, end))
        covered = end
    blocks.sort()
    return tuple(blocks)


def outside_code_blocks(doc: Document) -> Iterator[tuple[int, int]]:
    """The [start, end) ranges of the body outside code blocks, in order."""
    start, body = 0, doc.body
    for block_start, block_end in code_blocks(doc):
        if block_start > start:
            yield start, block_start
        start = max(start, block_end)
    if start < len(body):
        yield start, len(body)


def _in_fence(fences: tuple[tuple[int, int], ...], starts: list[int], at: int) -> bool:
    i = bisect_right(starts, at) - 1
    return i >= 0 and at < fences[i][1]


class _LineAbove:
    """Whether the last non-blank line before a blank one is a list item or indented, asked
    at offsets that only grow: the blank stretch read for one answer is not read again (a
    list item over 20,000 lines of spaces read them all once per line: 31 s)."""

    __slots__ = ("_answer", "_body", "_read")

    def __init__(self, body: str) -> None:
        self._body, self._read, self._answer = body, 0, False

    def continues_a_list(self, blank: int) -> bool:
        body, end, floor = self._body, blank, self._read
        while end > floor and body[end - 1] in " \t\r\n":
            end -= 1
        self._read = blank
        if end > floor:  # a non-blank character since the last answer: its line decides
            line = body[body.rfind("\n", 0, end) + 1 : end]
            self._answer = line[:1] in (" ", "\t") or _LIST_ITEM.match(line) is not None
        elif floor == 0:
            self._answer = False  # only blanks from the body's start
        return self._answer


def _indented_end(body: str, start: int) -> int:
    """Where the indented code block starting at `start` ends: its last indented line."""
    pos, end, size = start, start, len(body)
    while pos < size:
        newline = body.find("\n", pos)
        line_end = size if newline < 0 else newline
        if _INDENTED_LINE.match(body, pos):
            end = line_end
        elif body[pos:line_end].strip():
            break  # a line that is neither indented nor blank ends the block
        pos = line_end + 1
    return end


class CodeSpans:
    """The inline code spans of a body as CommonMark pairs them (6.1), found once, when an
    offset is first asked about: linear in the body's length however its backticks fall.

    A run of backticks opens a span that the next run of the same length closes, on the
    same line or a later one of its paragraph; a run with no such closer is literal. A
    paragraph ends at a blank line and where another block starts (`_NEXT`: a heading, a
    list item, a table row...); no run inside a code block (`blocks`) or an HTML comment
    begun outside a span counts. A backslash escapes an opener's first backtick, never a
    closer's (backslashes are literal inside code).
    """

    __slots__ = ("_blocks", "_body", "_ends", "_starts")

    def __init__(self, body: str, blocks: Sequence[tuple[int, int]] = ()) -> None:
        self._body = body
        self._blocks = blocks
        self._starts: list[int] | None = None
        self._ends: list[int] = []

    def inside(self, at: int) -> bool:
        """Whether offset `at` is inside a code span (its backticks included)."""
        starts = self._starts
        if starts is None:
            starts = self._pair()
        if not starts:
            return False
        i = bisect_right(starts, at) - 1
        return i >= 0 and at < self._ends[i]

    def spans(self) -> list[tuple[int, int, int]]:
        """(start, end, backticks) of each span in body order: its text is
        `body[start + backticks : end - backticks]`."""
        starts = self._starts if self._starts is not None else self._pair()
        body, out = self._body, []
        for start, end in zip(starts, self._ends, strict=True):
            width = _TICKS.match(body, start)
            out.append((start, end, 0 if width is None else width.end() - start))
        return out

    def _pair(self) -> list[int]:
        starts: list[int] = []
        self._starts = starts
        body = self._body
        if "`" not in body:
            return starts
        low = 0
        for block_start, block_end in (*self._blocks, (len(body), len(body))):
            if block_start > low and body.find("`", low, block_start) >= 0:
                _pair_range(body, low, block_start, starts, self._ends)
            low = max(low, block_end)
        return starts


def code_spans(doc: Document) -> CodeSpans:
    """The code spans of `doc`'s body outside its code blocks (kept for the last body
    asked: a lint asks of one document's links, code paths and tags in a row)."""
    kept = _LAST[0] if _LAST else None  # read once: another thread may replace it
    if kept is not None and kept[0] is doc.body:
        return kept[1]
    found = CodeSpans(doc.body, code_blocks(doc) if "`" in doc.body else ())
    _LAST[:] = [(doc.body, found)]
    return found


_LAST: list[tuple[str, CodeSpans]] = []


def _runs(body: str, low: int, high: int) -> list[tuple[int, int]]:
    """(start, end) of each run of backticks in `body[low:high]` (found in C: most bodies
    have few)."""
    runs = []
    at = body.find("`", low, high)
    while at >= 0:
        end = at + 1
        while end < high and body[end] == "`":
            end += 1
        runs.append((at, end))
        at = body.find("`", end, high)
    return runs


def _pair_range(body: str, low: int, high: int, starts: list[int], ends: list[int]) -> None:
    """The code spans of `body[low:high]` (outside code blocks) added to `starts`, `ends`.

    Each run is paired with the next run of its length (`_closers`); when a paragraph ends
    between them (`_Cuts`), none of its paragraph closes it and it is literal."""
    runs = _runs(body, low, high)
    closer = _closers(body, runs)
    cuts = _Cuts(body, low, high)
    comment = _next_comment(body, low, high)
    newline = -1  # the first line break from the last opener asked about on (`high`: none)
    i, count = 0, len(runs)
    while i < count:
        start, end = runs[i]
        if comment < start:  # an HTML comment opens before the run: skip it
            closed = body.find("-->", comment + 4, high)
            skip = high if closed < 0 else closed + 3
            while i < count and runs[i][0] < skip:
                i += 1
            comment = _next_comment(body, skip, high)
            continue
        j = closer[i]
        if j >= 0 and newline < end:
            newline = body.find("\n", end, high)
            newline = high if newline < 0 else newline
        if j < 0 or (newline < runs[j][0] and cuts.first(end) < runs[j][0]):
            i += 1  # no run of its length closes it in its paragraph: literal backticks
            continue
        starts.append(start + _escaped_tick(body, start))
        ends.append(runs[j][1])
        if comment < runs[j][1]:  # a comment opened inside the span is code
            comment = _next_comment(body, runs[j][1], high)
        i = j + 1


class _Cuts:
    """Where the paragraphs of `body[low:high]` end, asked at offsets that only grow: the
    first end at or after an offset is searched for once and kept, so no stretch of the
    body is read twice (an opener paired across a blank line asks again after it)."""

    __slots__ = ("_body", "_cut", "_from", "_high", "_low")

    def __init__(self, body: str, low: int, high: int) -> None:
        self._body, self._low, self._high = body, low, high
        self._from, self._cut = high, high  # nothing searched yet

    def first(self, at: int) -> int:
        """The offset of the first paragraph end at or after `at` (`high`: none)."""
        if self._from <= at <= self._cut:
            return self._cut
        body, high = self._body, self._high
        line = max(body.rfind("\n", 0, at) + 1, self._low)
        own = _LINE.match(body, line, high)
        cut = high
        if own is not None and own.lastgroup is not None:  # a block of one line ends here
            newline = body.find("\n", at, high)
            cut = high if newline < 0 else newline
        else:
            for found in _NEXT.finditer(body, at, high):
                if found["quote"] is None or not _QUOTED.match(
                    body, body.rfind("\n", 0, found.start()) + 1
                ):
                    cut = found.start()
                    break
        self._from, self._cut = at, cut
        return cut


def _closers(body: str, runs: list[tuple[int, int]]) -> list[int]:
    """For each run, the index of the next run as long as it opens (-1: none), found
    from the end once: no run looks ahead more than one step."""
    closer = [-1] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        start, end = runs[i]
        width = end - start
        opens = width - _escaped_tick(body, start)
        if opens:
            closer[i] = last.get(opens, -1)
        last[width] = i
    return closer


def _escaped_tick(body: str, start: int) -> int:
    """1 when the run of backticks at `start` opens with an escaped one (`\\``), else 0."""
    return 1 if start > 0 and body[start - 1] == "\\" and escaped(body, start) else 0


def _next_comment(body: str, low: int, high: int) -> int:
    """The offset of the next HTML comment's `<!--` in `body[low:high]` (`high`: none); an
    escaped `<` opens none (as `text.mdlinks.regions` reads them)."""
    at = body.find("<!--", low, high)
    while at > 0 and body[at - 1] == "\\" and escaped(body, at):
        at = body.find("<!--", at + 1, high)
    return high if at < 0 else at


def escaped(body: str, at: int) -> bool:
    """Whether the character at `at` follows an odd number of backslashes."""
    count = 0
    while at - count > 0 and body[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
