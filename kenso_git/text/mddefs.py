"""Where CommonMark reads a reference definition (`[label]: destination "title"`): at the
start of a paragraph only (a definition cannot interrupt one, CommonMark 4.7), its
destination on the label's line or the next, its title ending its line. `DEFINITIONS`
matches a line or finds a region's definitions alike, for the two-pass scan of
`text.mdlinks` and the one-pass scan of `lint.notable`; linear in the body.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kenso_git.text.mdsyntax import BLOCK_START
from kenso_git.text.mdsyntax import DESTINATION
from kenso_git.text.mdsyntax import TITLE

# The line ending between a definition's label and its destination: as `NEWLINE`, and not
# before any list item, empty or numbered from 2 (markdown-it, which the tests compare
# with, ends a definition there; CommonMark reads no definition in either)
_DEFINITION_NEWLINE = (
    rf"\n(?![ \t]*(?:\n|$)|[ \t]{{0,3}}(?:{BLOCK_START}"
    r"|(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t\n]|$)))"
)
# `[label]: destination` on a line of its own, the destination on the label's line or the
# next, then the end of its line or a title that ends its line (group 3); `DEFINITIONS`
# keeps those that start a paragraph
DEFINITION_LINE = re.compile(
    r"^ {0,3}\[(?!\^)((?:[^\]\\\n]|\\.){1,999})\]:"
    + rf"[ \t]*+(?:{_DEFINITION_NEWLINE}[ \t]*+)?"
    + DESTINATION
    + rf"(?=[ \t]+({TITLE})[ \t]*$|[ \t]*$)",
    re.MULTILINE,
)

_BLOCK_END = re.compile(
    r"[ \t]*$| {0,3}(?:#{1,6}(?:[ \t]|$)|(?:(?:\*[ \t]*+){3,}+|-[- \t]*+|(?:_[ \t]*+){3,}+)$"
    r"|`{3,}+[^`\n]*+$|~{3,}|(?:[+*]|[0-9]{1,9}[.)])[ \t]*$)",
    re.MULTILINE,
)
_SETEXT_EQUALS = re.compile(r" {0,3}=+[ \t]*$", re.MULTILINE)
_INDENTED = re.compile(r"(?: {4}| {0,3}\t)[ \t]*[^ \t\n]")  # a line indented four, not blank
_TITLE_LINE = re.compile(rf"[ \t]*(?:{TITLE})[ \t]*$", re.MULTILINE)
_COMMENT_WINDOW = 4096  # characters looked back for the `<!--` of a line's `-->`
# the last line `_opens_paragraph` answered: (body, line start, answer)
_LAST_OPENS: list[tuple[str, int, bool]] = [("", -1, False)]


class _Definitions:
    """The reference definitions of a body (`DEFINITION_LINE` matches) that CommonMark
    reads: those that start a paragraph (`_opens_paragraph`), as `finditer` over a region
    and as `match` at one line start alike (`lint/notable` asks a line at a time)."""

    __slots__ = ()

    def match(self, body: str, pos: int, end: int) -> re.Match[str] | None:
        """The definition at the line start `pos`, or None."""
        found = DEFINITION_LINE.match(body, pos, end)
        return found if found is not None and _opens_paragraph(body, pos) else None

    def finditer(self, body: str, start: int, end: int) -> Iterator[re.Match[str]]:
        """The definitions of `body[start:end]`, in order."""
        for found in DEFINITION_LINE.finditer(body, start, end):
            if _opens_paragraph(body, found.start()):
                yield found


DEFINITIONS = _Definitions()


def _opens_paragraph(body: str, line: int) -> bool:
    """Whether a paragraph (where a definition may stand) may start at the line start
    `line`: a definition cannot interrupt a paragraph (CommonMark 4.7), so the line before
    must end a block (`_BLOCK_END`, a setext `=` underline, an HTML comment's last line,
    indented code) or a definition that itself starts one. The walk back over definitions
    stops at the line last answered, so a body's lines asked in order cost what they read."""
    at, flipped = line, False  # flipped: the answer is the opposite of the one for `at`
    while True:
        last_body, last_line, last_answer = _LAST_OPENS[0]
        if last_line == at and last_body is body:
            answer = last_answer != flipped
            break
        if at == 0:
            answer = not flipped
            break
        above = body.rfind("\n", 0, at - 1) + 1
        if _ends_block(body, above, at):
            answer = not flipped
            break
        if _SETEXT_EQUALS.match(body, above, at) is not None:
            # an underline (a block's end) under a paragraph's text, a paragraph's text
            # where a paragraph may start (a definition's last line is no paragraph's
            # text: markdown-it)
            at, flipped = above, not flipped
            continue
        opened = _definition_ending(body, above, at)
        if opened >= 0:
            at = opened
            continue
        if _INDENTED.match(body, above, at) is not None:
            # indented code when the line above it ends a block, a paragraph's text if not
            at = above
            continue
        answer = flipped
        break
    _LAST_OPENS[0] = (body, line, answer)
    return answer


def _definition_ending(body: str, line: int, end: int, *, titled: bool = True) -> int:
    """The start of the definition whose last line is `body[line:end]` (it starts there, or
    has its destination there, or, when `titled`, a title of a line's own), or -1."""
    if DEFINITION_LINE.match(body, line, end) is not None:
        return line
    if line == 0:
        return -1
    above = body.rfind("\n", 0, line - 1) + 1
    found = DEFINITION_LINE.match(body, above, end)
    if found is not None and found.end() > line:
        return above
    if not titled or _TITLE_LINE.match(body, line, end) is None:
        return -1
    opened = _definition_ending(body, above, line, titled=False)
    if opened < 0:
        return -1
    untitled = DEFINITION_LINE.match(body, opened, line)
    return opened if untitled is not None and untitled[3] is None else -1


def _ends_block(body: str, line: int, end: int) -> bool:
    """Whether a paragraph may start after the line `body[line:end]` (`_BLOCK_END`, or the
    last line of an HTML comment block)."""
    return _BLOCK_END.match(body, line, end) is not None or _comment_ends(body, line, end)


def _comment_ends(body: str, line: int, end: int) -> bool:
    """Whether `body[line:end]` ends an HTML block that a `<!--` at a line start opened."""
    close = body.find("-->", line, end)
    if close < 0:
        return False
    opening = body.rfind("<!--", max(0, line - _COMMENT_WINDOW), close)
    if opening < 0 or body.find("-->", opening + 4, close) >= 0:
        return False
    start = body.rfind("\n", 0, opening) + 1
    return opening - start <= 3 and body[start:opening].strip(" ") == ""
