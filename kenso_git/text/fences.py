"""Fenced code blocks read line by line, list items' fences included (pure).

A fence may stand in a list item, indented to the item's content column plus up to 3
(CommonMark 4.5, 5.2): `5. step` then `   ```bash` ... `    ```` is one block, closed by
that last line though it is indented by 4; `1. step` then `\t```yml` (a tab: column 4)
opens one too. The parser does not track list items' columns, so it bounds them instead:

* an opening fence may be indented by up to `MAX_FENCE_INDENT` columns (a tab stops at the
  next multiple of 4); indented by 4 or more it can only be a list item's (or lie in an
  indented code block, which is code all the same);
* a fence indented by i closes at a fence line indented by at most i + 3 (at the top level,
  i = 0, by at most 3, as CommonMark says);
* a fence indented by i >= 4 also ends before the first line indented by less than i - 3,
  which no item holding it reaches: the item, and so the block, ended there.

Before, such a block never closed (its closing line read as an opening one, or not read)
and hid every heading after it: Spinnaker's docs lost three sections of a page that kenso
2.0.0 keeps, and lint called links to them dead.
"""

from __future__ import annotations

import re

MAX_FENCE_INDENT = 15  # columns: a list nested three or four deep
CANDIDATE = r"[ \t]{0,15}(?:```|~~~)"  # what a fence line starts with (MAX_FENCE_INDENT)
_CLOSER_SLACK = 3
# the first line indented by at most k columns after a position, for k < MAX_FENCE_INDENT - 3
_LEFT_OF = tuple(re.compile(rf"\n {{0,{k}}}[^ \t\n]") for k in range(MAX_FENCE_INDENT - 3))


def width_at(line: str, at: int = 0, column: int = 0) -> tuple[int, int]:
    """(the column, the index) of the first character at or after index `at` (standing at
    `column`) that is not a space or a tab, a tab advancing to the next multiple of 4
    (CommonMark 2.2)."""
    for index in range(at, len(line)):
        char = line[index]
        if char == " ":
            column += 1
        elif char == "\t":
            column += 4 - column % 4
        else:
            return column, index
    return column, len(line)


def fence_run(line: str, max_indent: int = 3) -> tuple[str, int, str]:
    """(fence character, run length, rest of line) of a fence line indented by at most
    `max_indent` columns, else ("", 0, "")."""
    column, at = width_at(line)
    if column > max_indent or line[at : at + 1] not in ("`", "~"):
        return "", 0, ""
    stripped = line[at:]
    char = stripped[0]
    rest = stripped.lstrip(char)
    run = len(stripped) - len(rest)
    if run < 3 or (char == "`" and "`" in rest):
        return "", 0, ""
    return char, run, rest


class ItemEnds:
    """Where a list item's fence indented by i >= 4 ends unclosed: before the first line,
    after a given position, indented by less than i - 3. Asked in body order, each indent's
    search resumes where the last one found its line, so a body costs one pass per indent
    (linear, however many fences it opens)."""

    __slots__ = ("_body", "_found")

    def __init__(self, body: str) -> None:
        self._body = body
        self._found: dict[int, tuple[int, int]] = {}  # k: (searched from, line found at)

    def after(self, end: int, indent: int) -> int:
        """The start of the first line after `end` that leaves an item whose fence is
        indented by `indent`, else one past the body's end."""
        k = indent - 4
        searched, at = self._found.get(k, (-1, -1))
        if searched <= end < at:
            return at
        found = _LEFT_OF[k].search(self._body, end)
        at = len(self._body) + 1 if found is None else found.start() + 1
        self._found[k] = (end, at)
        return at


class OpenFence:
    """A fenced block opened by the line at `start`, not closed yet."""

    __slots__ = ("char", "closer_indent", "length", "limit", "start")

    def __init__(self, start: int, char: str, length: int, indent: int, limit: int) -> None:
        self.start, self.char, self.length, self.limit = start, char, length, limit
        self.closer_indent = 3 if indent == 0 else indent + _CLOSER_SLACK

    def closes(self, line: str) -> bool:
        """Whether `line` is this block's closing fence."""
        char, run, rest = fence_run(line, self.closer_indent)
        return char == self.char and run >= self.length and not rest.strip()


def opened(body: str, start: int, end: int, ends: ItemEnds) -> OpenFence | None:
    """The fenced block the line `body[start:end]` opens, if it is an opening fence; it
    ends unclosed at `limit` (a list item's: where the item ends; else the body's end)."""
    line = body[start:end]
    char, length, _ = fence_run(line, MAX_FENCE_INDENT)
    if not char:
        return None
    indent = width_at(line)[0]
    limit = ends.after(end, indent) if indent >= 4 else len(body) + 1
    return OpenFence(start, char, length, indent, limit)
