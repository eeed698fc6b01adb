"""What Markdown renders as code, so that nothing inside it is read as a link (pure; linear
in the body's length).

* Code blocks: the parser's fenced blocks, fenced blocks in block quotes (`quoted_fences`),
  raw HTML blocks that keep their text (`<pre>`, `<script>`: `raw_blocks`), and indented
  code blocks (lines indented by four spaces or a tab after a blank line,
  where the line before that blank is neither a list item nor indented: there the
  indentation continues the list item, CommonMark 4.4).
* Code spans: a run of backticks opens a span that the next run of the same length in its
  paragraph closes, on its line or a later one; a run with no such closer is literal
  (CommonMark 6.1). A double-backtick span holding a single backtick is code, which
  counting backticks by parity got wrong; a span over a line break is code, which pairing
  runs line by line got wrong (a link inside one was a KS022).
* HTML comments, read in the same pass as code spans, in CommonMark's order: a `<!--`
  inside a code span is code and hides nothing, and an inline one its paragraph does not
  close is text (CommonMark 6.6), where cutting comments out first hid every link after a
  `` `<!--` `` from lint, `--fix` and the link graph (`comments`, `text.mdlinks.regions`).
* A `]` after an odd number of backslashes is a literal bracket, not a link's text ending.

`text.links` (the link graph) and `text.mdlinks` (lint's links) both step over these, so
the stored graph and the linter agree.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.text.fences import fence_run
from kenso_git.text.mdparagraph import ParagraphEnds
from kenso_git.text.mdparagraph import container_end
from kenso_git.text.parse import Document

# a blank line (or the body's start) followed by a line indented as code
_INDENTED_START = re.compile(r"\A(?= {0,3}\t| {4})|\n[ \t]*\n(?= {0,3}\t| {4})")
_INDENTED_LINE = re.compile(r" {0,3}\t| {4}")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_TICKS = re.compile("`+")
# What may stand before a line's text: indentation, block-quote markers and list markers (a
# `<!--` right after them starts an HTML block)
_LEAD = re.compile(r"[ \t>]*+(?:(?:[-+*]|\d{1,9}[.)])[ \t]++[ \t>]*+)*+")
_LEAD_MAX = 200  # characters of such a lead looked at (more: not a block's start)
# Raw HTML that may hold a backtick, which then opens no code span (CommonMark 6.5, 6.6): an
# open tag (a quoted attribute value may hold one) or an autolink (a URI or an e-mail
# address). Possessive: a failed try reads what it read once.
_RAW_HTML = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9-]*+"
    r"(?:\s++[A-Za-z_:][A-Za-z0-9_.:-]*+(?:\s*+=\s*+(?:[^\s\"'=<>`]++|'[^']*+'|\"[^\"]*+\"))?+)*+"
    r"\s*+/?>"
    r"|[A-Za-z][A-Za-z0-9+.-]{1,31}+:[^\x00-\x20<>]*+>"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]++@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}+[A-Za-z0-9])?+"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}+[A-Za-z0-9])?+)*+>)"
)
_HTML_WINDOW = 1000  # characters a raw HTML tag is read over at most


def code_blocks(doc: Document) -> tuple[tuple[int, int], ...]:
    """The [start, end) ranges of the body in fenced or indented code blocks, a block
    quote's fences and raw HTML blocks included, in order (kept for the last body asked:
    its links and its code spans both step over them)."""
    body = doc.body
    quoted = ">" in body and ("```" in body or "~~~" in body)
    raw = "<" in body and _RAW_BLOCK_HINT.search(body) is not None
    indented = "\n    " in body or "\t" in body or body.startswith("    ")
    if not (quoted or raw or indented):
        return doc.fences
    kept = _BLOCKS[0] if _BLOCKS else None  # read once: another thread may replace it
    if kept is not None and kept[0] is body:
        return kept[1]
    found = _indented_blocks(doc)
    if quoted:
        found = _merged(found, quoted_fences(body, found))
    if raw:
        found = _merged(found, raw_blocks(body, found))
    _BLOCKS[:] = [(body, found)]
    return found


# CommonMark 4.6, HTML block type 1: a line opening `<pre`, `<script`, `<style` or
# `<textarea` starts a block that runs to the first line closing one, its text kept as
# written (no Markdown, so no link, inside)
_RAW_BLOCK_HINT = re.compile(r"<(?:pre|script|style|textarea)", re.I)
_RAW_OPEN = re.compile(r"(?m)^ {0,3}<(?:pre|script|style|textarea)(?:[ \t>]|$)", re.I)
_RAW_CLOSE = re.compile(r"</(?:pre|script|style|textarea)>", re.I)


def raw_blocks(body: str, code: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The [start, end) ranges of the HTML blocks of type 1 (`<pre>` ... `</pre>`): from the
    opening line to the end of the line closing it (or of the body), but none opened inside
    the `code` blocks (sorted). Linear: each search starts where the last block ended."""
    out: list[tuple[int, int]] = []
    at = 0
    while (opened := _RAW_OPEN.search(body, at)) is not None:
        inside = _inside(code, opened.start())
        if inside is not None:
            at = inside
            continue
        closed = _RAW_CLOSE.search(body, opened.start())
        if closed is None:
            out.append((opened.start(), len(body)))
            break
        newline = body.find("\n", closed.end())
        end = len(body) if newline < 0 else newline
        out.append((opened.start(), end))
        at = end
    return out


# a line's block-quote markers (`> `, `>`, `> > `), each after up to 3 spaces
_QUOTE_MARKS = re.compile(r"(?: {0,3}>[ ]?)+")


def _inside(blocks: Sequence[tuple[int, int]], at: int) -> int | None:
    """The end of the block of `blocks` (sorted, disjoint) holding offset `at`, else None."""
    index = bisect_right(blocks, at, key=lambda block: block[0]) - 1
    if index >= 0 and blocks[index][0] <= at < blocks[index][1]:
        return blocks[index][1]
    return None


def quoted_fences(body: str, code: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The [start, end) ranges of the fenced code blocks inside block quotes: a fence after
    a line's `>` markers, closed by a fence line of as many markers, or ended by the first
    line with fewer (a fence has no lazy lines: the quote, and so the block, ends there),
    CommonMark 5.1. One pass over the lines."""
    out: list[tuple[int, int]] = []
    opened: tuple[int, int, str, int] | None = None  # start, markers, fence char, run
    at = 0
    for line in body.split("\n"):
        marks = _QUOTE_MARKS.match(line)
        depth = marks.group().count(">") if marks else 0
        rest = line[marks.end() :] if marks else line
        if opened is not None:
            start, markers, char, run = opened
            if depth < markers:
                out.append((start, max(start, at - 1)))
                opened = None
            else:
                found, length, tail = fence_run(rest)
                if found == char and length >= run and not tail.strip():
                    out.append((start, at + len(line)))
                    opened = None
                at += len(line) + 1
                continue
        if depth and _inside(code, at) is None:  # not a fence shown inside another block
            found, length, _ = fence_run(rest)
            if found:
                opened = (at, depth, found, length)
        at += len(line) + 1
    if opened is not None:
        out.append((opened[0], len(body)))
    return out


def _merged(
    blocks: Sequence[tuple[int, int]], more: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """The union of two sets of ranges, in order, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted([*blocks, *more]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return tuple(out)


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
    """The inline code spans and HTML comments of a body as CommonMark reads them (6.1,
    6.6), found once, when first asked about: linear in the body's length however its
    backticks and comments fall.

    One pass reads each stretch between code blocks (`blocks`) from the left, as CommonMark
    reads inlines: at a backtick run or a `<!--`, whichever comes first, a code span, an
    HTML comment, or raw HTML or an autolink holding it (they bind tighter than a span),
    else literal text. A run opens a span that the next run of its length closes, on its
    line or a later one of its paragraph (`text.mdparagraph`); a run with no such closer is
    literal. A `<!--` that starts a line's text (after container markers) starts an HTML
    block, to the end of the line holding `-->`; elsewhere it is a comment when its
    paragraph holds a `-->` after it, else literal. So a `<!--` written inside a span is
    code and hides nothing, and a span's backticks inside a comment pair with nothing. A
    backslash escapes an opener's first backtick and a `<`, never a closer (backslashes are
    literal inside code).
    """

    __slots__ = ("_blocks", "_body", "_comments", "_ends", "_starts")

    def __init__(self, body: str, blocks: Sequence[tuple[int, int]] = ()) -> None:
        self._body = body
        self._blocks = blocks
        self._starts: list[int] | None = None
        self._ends: list[int] = []
        self._comments: list[tuple[int, int]] = []

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

    def comments(self) -> list[tuple[int, int]]:
        """The [start, end) ranges of the HTML comments, in body order (an HTML block's to
        the end of the line holding its `-->`)."""
        if self._starts is None:
            self._pair()
        return self._comments

    def _pair(self) -> list[int]:
        starts: list[int] = []
        self._starts = starts
        body = self._body
        if "`" not in body and "<!--" not in body:
            return starts
        low = 0
        for block_start, block_end in (*self._blocks, (len(body), len(body))):
            if block_start > low and (
                body.find("`", low, block_start) >= 0 or body.find("<!--", low, block_start) >= 0
            ):
                _Pass(body, low, block_start, self._comments).run(starts, self._ends)
            low = max(low, block_end)
        return starts


def code_spans(doc: Document) -> CodeSpans:
    """The code spans and HTML comments of `doc`'s body outside its code blocks (kept for
    the last body asked: a lint asks of one document's links, code paths and tags in a
    row)."""
    kept = _LAST[0] if _LAST else None  # read once: another thread may replace it
    body = doc.body
    if kept is not None and kept[0] is body:
        return kept[1]
    found = CodeSpans(body, code_blocks(doc) if "`" in body or "<!--" in body else ())
    _LAST[:] = [(body, found)]
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


class _Pass:
    """One left-to-right pass over `body[low:high]` (between code blocks)."""

    __slots__ = ("body", "closes", "comments", "cuts", "high", "low")

    def __init__(self, body: str, low: int, high: int, comments: list[tuple[int, int]]) -> None:
        self.body, self.low, self.high, self.comments = body, low, high, comments
        self.cuts = ParagraphEnds(body, low, high)
        self.closes = (high + 1, -1)  # the last `-->` searched for: from where, found where

    def run(self, starts: list[int], ends: list[int]) -> None:
        """Add the code spans' starts and ends to the lists given, the comments to
        `comments`."""
        body, high = self.body, self.high
        runs = _runs(body, self.low, high)
        closer = _closers(body, runs)
        comment = _next_comment(body, self.low, high)
        lt = self._next_lt(self.low)  # no `<` before it opens raw HTML holding what follows
        newline = -1  # the first line break from the last opener asked about (`high`: none)
        i, count = 0, len(runs)
        while i < count or comment < high:
            start = runs[i][0] if i < count else high
            at = start if start < comment else comment
            resume = self._raw_html(body.rfind("<", lt, at), at) if lt < at else -1
            if resume < 0 and comment < start:
                resume = self._comment(comment)
            elif resume < 0:
                end, j = runs[i][1], closer[i]
                if j >= 0 and newline < end:
                    newline = body.find("\n", end, high)
                    newline = high if newline < 0 else newline
                if j < 0 or (newline < runs[j][0] and self.cuts.first(end) < runs[j][0]):
                    i += 1  # no run of its length closes it in its paragraph: literal backticks
                    if lt < at:
                        lt = self._next_lt(at)
                    continue
                starts.append(start + _escaped_tick(body, start))
                ends.append(runs[j][1])
                resume, i = runs[j][1], j + 1
            while i < count and runs[i][0] < resume:
                i += 1
            if comment < resume:
                comment = _next_comment(body, resume, high)
            if lt < resume:
                lt = self._next_lt(resume)

    def _comment(self, at: int) -> int:
        """Where the HTML comment at `at` ends (kept), or the offset after its `<!--` when
        it is text: an inline one its paragraph does not close."""
        body, high = self.body, self.high
        close = self._close(at + 2)  # `<!-->` and `<!--->` are comments (CommonMark 0.31)
        # the line's start, looked for over as many characters as a block's lead may take
        # (each comment's look is short however long its line)
        line = max(body.rfind("\n", max(at - _LEAD_MAX, 0), at) + 1, self.low)
        lead = _LEAD.match(body, line)
        if lead is not None and lead.end() == at and self.cuts.starts_block(line):
            newline = -1 if close < 0 else body.find("\n", close, high)
            item = self.cuts.item_column(line, at)
            end = container_end(body, line, at, item, high if newline < 0 else newline)
            self.cuts.html_block(line, end)
        elif close < 0 or (body.find("\n", at, close) >= 0 and self.cuts.first(at) < close):
            return at + 4
        else:
            end = close + 3
        self.comments.append((at, end))
        return end

    def _close(self, start: int) -> int:
        """The offset of the first `-->` from `start` on (-1: none), asked at offsets that
        only grow: a search no `-->` ends is not made again."""
        first, found = self.closes
        if not (first <= start and (found < 0 or found >= start)):
            found = self.body.find("-->", start, self.high)
            self.closes = (start, found)
        return found

    def _raw_html(self, lt: int, at: int) -> int:
        """Where the raw HTML tag or autolink the `<` at `lt` opens ends when it holds offset
        `at` (-1: it opens none, or one that ends before). `lt` is the last `<` before `at`:
        a `>` between them ends any tag (but for one in a quoted attribute value, missed)."""
        body = self.body
        if body.find(">", lt, at) >= 0 or escaped(body, lt):
            return -1
        tag = _RAW_HTML.match(body, lt, min(self.high, lt + _HTML_WINDOW))
        if tag is None or tag.end() <= at:
            return -1
        if body.find("\n", lt, tag.end()) >= 0 and self.cuts.first(lt) < tag.end():
            return -1  # a paragraph ends inside it: no tag
        return tag.end()

    def _next_lt(self, start: int) -> int:
        """The offset of the next `<` from `start` on (`high`: none)."""
        found = self.body.find("<", start, self.high)
        return self.high if found < 0 else found


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
    """The offset of the next `<!--` in `body[low:high]` (`high`: none); an escaped `<`
    opens none (`\\<!--`, as a fix writes a path that starts so)."""
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
