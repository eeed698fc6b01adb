"""Regular expressions for `regex_search` and the `re:` filter, run by RE2 in linear time.

The only module that imports `re2` (google-re2): Python's `re` backtracks, so a pattern such
as `(a+)+$` over a long line of `a`s would take exponential time; RE2 has no backtracking
and answers in time linear in the text. Patterns are compiled before any text is read, are
capped at `MAX_PATTERN_BYTES`, and are line-oriented: `^` and `$` match at line breaks, and
a match never spans one (RE2's `never_nl`). Text is searched as UTF-8 bytes, so a search
from an offset never re-encodes the text.

Linear is not cheap: RE2's cost per byte grows with the compiled program (`(.*a){999}`
takes 12 us a byte, 24 s over a 2 MB file, in one uninterruptible call). So text is
searched in windows of whole lines, sized from the program so that one window costs a few
tens of milliseconds at worst, with the call's budget checked between windows (#27). A line
longer than a window is searched in window-sized pieces: a match across such a cut is not
found (no Markdown line of a docs corpus comes near it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import re2

from kenso_git.errors import UsageError
from kenso_git.search.lang.querylang import MAX_PATTERN_BYTES
from kenso_git.store import budget

_HEADING = re.compile(rb"^#{1,6}[ \t]+([^\n]*)", re.MULTILINE)  # no nested repeats: linear
# RE2 costs about 1.5 ns per byte and program instruction at worst (its NFA); a window is
# sized so that it costs at most WINDOW_NS, within these bounds
WINDOW_NS = 20_000_000
MIN_WINDOW = 16 * 1024
MAX_WINDOW = 256 * 1024
RE2_MAX_MEM = 4 << 20  # the DFA cache of one pattern (RE2's default is 8 MB; a call may run 12)


class PatternError(UsageError):
    """A regular expression RE2 refuses (too long, malformed, or needing backtracking)."""


class _Match(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...


class _Compiled(Protocol):
    def search(self, text: bytes, pos: int = ..., endpos: int = ...) -> _Match | None: ...


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled, line-oriented RE2 pattern, and the bytes one search may cover."""

    source: str
    regexp: _Compiled
    window: int = MAX_WINDOW

    def matches(self, text: str) -> bool:
        """True when the pattern matches somewhere in `text`."""
        return self.search(text.encode("utf-8"), 0) is not None

    def search(self, data: bytes, pos: int) -> _Match | None:
        """The first match at or after `pos`, searched window by window (the call's budget
        is checked between windows)."""
        size = len(data)
        while pos < size:
            end = pos + self.window
            if end < size:
                cut = data.rfind(b"\n", pos, end)
                end = cut + 1 if cut >= 0 else end  # whole lines, or a piece of a long one
            else:
                end = size
            found = self.regexp.search(data, pos, end)
            if found is not None:
                return found
            pos = end
            if pos < size:
                budget.check()
        return None


@dataclass(frozen=True, slots=True)
class LineHit:
    """The first match on one line: its 1-based line, its line's text, where it starts."""

    line: int
    text: str
    column: int  # 0-based character offset of the match in `text`
    section: str  # the nearest heading above the line ("" before the first)


def compile_pattern(pattern: str) -> Pattern:
    """`pattern` compiled by RE2, before any text is read.

    Raises:
        PatternError: the pattern is empty, longer than `MAX_PATTERN_BYTES`, or refused by
            RE2 (bad syntax, backreferences, lookaround).
    """
    size = len(pattern.encode("utf-8"))
    if not pattern:
        raise PatternError("empty regular expression", hint="pass a pattern such as 'fn \\w+'")
    if size > MAX_PATTERN_BYTES:
        raise PatternError(
            f"regular expression of {size} bytes is longer than {MAX_PATTERN_BYTES} bytes",
            hint="shorten the pattern, or narrow the search with path or ext",
        )
    options = re2.Options()
    options.log_errors = False  # the refusal is reported to the caller, not logged to stderr
    options.never_nl = True  # a match stays on one line: windows of whole lines are exact
    options.max_mem = RE2_MAX_MEM
    try:
        compiled = re2.compile("(?m)" + pattern, options)
    except re2.error as err:
        reason = err.args[0] if err.args else err
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        reason = str(reason).replace("(?m)" + pattern, pattern)  # RE2 quotes what it compiled
        raise PatternError(
            f"regular expression {pattern!r} is refused by RE2: {reason}",
            hint="RE2 syntax has no backreferences (\\1) and no lookaround ((?=...), (?<=...))",
        ) from None
    budget.costly(compiled.programsize)  # a large program is expensive before any byte is read
    cost = max(1, compiled.programsize) * 1.5  # ns per byte, at worst
    window = int(min(MAX_WINDOW, max(MIN_WINDOW, WINDOW_NS / cost)))
    return Pattern(pattern, compiled, window)


def line_hits(pattern: Pattern, data: bytes) -> Iterator[LineHit]:
    """The first match of each matching line of `data`, in order.

    After a hit the search resumes at the next line, and line numbers and headings are
    counted only over the bytes passed since the previous hit: linear in `data`.
    """
    pos, line, counted, section = 0, 1, 0, b""
    size = len(data)
    while pos < size:
        found = pattern.search(data, pos)
        if found is None:
            return
        start = found.start()
        line_start = data.rfind(b"\n", counted, start) + 1 or counted
        for heading in _HEADING.finditer(data, counted, line_start):
            section = heading[1].rstrip(b" \t\r#")
        line += data.count(b"\n", counted, start)
        counted = line_start
        line_end = data.find(b"\n", start)
        if line_end < 0:
            line_end = size
        head = data[line_start:start].decode("utf-8", errors="replace")
        text = head + data[start:line_end].decode("utf-8", errors="replace")
        yield LineHit(line, text.rstrip("\r"), len(head), section.decode("utf-8", "replace"))
        pos = line_end + 1
