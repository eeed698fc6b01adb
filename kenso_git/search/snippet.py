"""Token-bounded excerpts of one file, centred on the first line that matches a query.

Used by the MCP `read_snippet` tool. The text is capped at `max_tokens * 4` characters,
so a snippet never returns a whole large file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_TOKENS = 32
MAX_TOKENS = 1024
DEFAULT_TOKENS = 256
CHARS_PER_TOKEN = 4
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Snippet:
    """Lines `line_start`..`line_end` (1-based, inclusive) of a file, maybe cut."""

    line_start: int
    line_end: int
    text: str
    truncated: bool  # True when the file has text outside the returned window
    token_budget: int
    matched: bool


def clamp_tokens(max_tokens: int) -> int:
    """The budget actually used: `max_tokens` clamped to [32, 1024]."""
    return max(MIN_TOKENS, min(MAX_TOKENS, max_tokens))


def find_line(lines: list[str], query: str) -> int | None:
    """0-based index of the first line matching `query`, or None.

    Tries the whole query as a case-insensitive substring, then the first line holding
    every query word, then the first line holding the longest query word.
    """
    needle = query.strip().casefold()
    if not needle:
        return 0 if lines else None
    folded = [line.casefold() for line in lines]
    for i, line in enumerate(folded):
        if needle in line:
            return i
    words = [w for w in _WORD.findall(needle) if len(w) >= 2]
    if not words:
        return None
    for i, line in enumerate(folded):
        if all(w in line for w in words):
            return i
    longest = max(words, key=len)
    for i, line in enumerate(folded):
        if longest in line:
            return i
    return None


def make_snippet(text: str, query: str, max_tokens: int = DEFAULT_TOKENS) -> Snippet | None:
    """The window of whole lines around the first match, within the character budget.

    Returns None when nothing matches. An empty query gives the start of the file.
    """
    budget = clamp_tokens(max_tokens)
    cap = budget * CHARS_PER_TOKEN
    lines = text.splitlines()
    if not lines:
        return Snippet(1, 1, "", False, budget, matched=not query.strip())
    hit = find_line(lines, query)
    if hit is None:
        return None
    if len(lines[hit]) >= cap:
        return _cut_long_line(lines, hit, query, cap, budget)
    first = last = hit
    used = len(lines[hit])
    grow_down = True
    while True:
        below = last + 1 < len(lines) and used + len(lines[last + 1]) + 1 <= cap
        above = first > 0 and used + len(lines[first - 1]) + 1 <= cap
        if not below and not above:
            break
        # Alternate, starting below: a match is usually a heading or a lead sentence.
        if (grow_down and below) or not above:
            last += 1
            used += len(lines[last]) + 1
        else:
            first -= 1
            used += len(lines[first]) + 1
        grow_down = not grow_down
    body = "\n".join(lines[first : last + 1])
    truncated = first > 0 or last < len(lines) - 1
    return Snippet(first + 1, last + 1, body, truncated, budget, matched=True)


def _cut_long_line(lines: list[str], hit: int, query: str, cap: int, budget: int) -> Snippet:
    line = lines[hit]
    at = max(0, line.casefold().find(query.strip().casefold()))
    start = max(0, min(at - cap // 2, len(line) - cap))
    body = line[start : start + cap]
    return Snippet(hit + 1, hit + 1, body, True, budget, matched=True)
