"""What Markdown renders as code, so that nothing inside it is read as a link (pure; linear
in the body's length).

* Code blocks: the parser's fenced blocks, and indented code blocks (lines indented by four
  spaces or a tab after a blank line, where the line before that blank is neither a list
  item nor indented: there the indentation continues the list item, CommonMark 4.4).
* Code spans: a run of backticks opens a span that the next run of the same length on the
  line closes; a run with no such closer is literal (CommonMark 6.1). A double-backtick
  span holding a single backtick is code, which counting backticks by parity got wrong.
* A `]` after an odd number of backslashes is a literal bracket, not a link's text ending.

`text.links` (the link graph) and `text.mdlinks` (lint's links) both step over these, so
the stored graph and the linter agree.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from kenso_git.text.parse import Document

# a blank line (or the body's start) followed by a line indented as code
_INDENTED_START = re.compile(r"\A(?= {0,3}\t| {4})|\n[ \t]*\n(?= {0,3}\t| {4})")
_INDENTED_LINE = re.compile(r" {0,3}\t| {4}")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_TICKS = re.compile("`+")


def code_blocks(doc: Document) -> list[tuple[int, int]]:
    """The [start, end) ranges of the body in fenced or indented code blocks, in order."""
    body = doc.body
    if "\n    " not in body and "\t" not in body and not body.startswith("    "):
        return list(doc.fences)
    blocks = list(doc.fences)
    fence_starts = [start for start, _ in doc.fences]
    covered = 0  # indented blocks found so far end here
    for match in _INDENTED_START.finditer(body):
        start = match.end()
        if start < covered or _in_fence(doc.fences, fence_starts, start):
            continue
        if _continues_a_list(body, match.start()):
            continue
        end = _indented_end(body, start)
        blocks.append((start, end))
        covered = end
    blocks.sort()
    return blocks


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


def _continues_a_list(body: str, blank: int) -> bool:
    """Whether the last non-blank line before offset `blank` is a list item or indented."""
    end = blank
    while end > 0 and body[end - 1] in " \t\r\n":
        end -= 1
    if end == 0:
        return False
    line = body[body.rfind("\n", 0, end) + 1 : end]
    return line[:1] in (" ", "\t") or _LIST_ITEM.match(line) is not None


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
    """Whether an offset of a body is inside an inline code span, line by line (each line's
    spans are found once, when an offset on it is first asked about)."""

    __slots__ = ("_body", "_ends", "_line", "_starts")

    def __init__(self, body: str) -> None:
        self._body = body
        self._line = (-1, -1)
        self._starts: list[int] = []
        self._ends: list[int] = []

    def inside(self, at: int) -> bool:
        """Whether offset `at` is inside a code span of its line."""
        line_start, line_end = self._line
        if not line_start <= at < line_end:
            self._read_line(at)
        if not self._starts:
            return False
        i = bisect_right(self._starts, at) - 1
        return i >= 0 and at < self._ends[i]

    def _read_line(self, at: int) -> None:
        body = self._body
        start = body.rfind("\n", 0, at) + 1
        newline = body.find("\n", at)
        end = len(body) if newline < 0 else newline
        self._line = (start, end)
        self._starts, self._ends = [], []
        if body.find("`", start, end) < 0:
            return
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(body, start, end)]
        following: list[int | None] = [None] * len(runs)
        last: dict[int, int] = {}
        for i in range(len(runs) - 1, -1, -1):
            width = runs[i][1] - runs[i][0]
            following[i] = last.get(width)
            last[width] = i
        i = 0
        while i < len(runs):
            j = following[i]
            if j is None:  # no closer of its length: the run is literal backticks
                i += 1
                continue
            self._starts.append(runs[i][0])
            self._ends.append(runs[j][1])
            i = j + 1


def escaped(body: str, at: int) -> bool:
    """Whether the character at `at` follows an odd number of backslashes."""
    count = 0
    while at - count > 0 and body[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
