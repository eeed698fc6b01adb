"""The length cap of a search hit's highlight (`bound_highlight`).

kenso 2.0.0 returns FTS5's snippet window as it is, so a doc holding one huge token
(minified data, a base64 blob, a long URL) gave it whole in its hit's `highlight`. Here a
highlight of more than `HIGHLIGHT_CHARS` characters is shortened, in one linear pass, with
its `<mark>` pairs kept whole and paired.
"""

from __future__ import annotations

import re

MARK_OPEN, MARK_CLOSE, ELLIPSIS = "<mark>", "</mark>", "..."
HIGHLIGHT_CHARS = 2_048  # the most characters a highlight shows, marks included
_RUN_CHARS = 64  # a longer token or space run of a highlight over budget is shortened
_RUN_HALF = (_RUN_CHARS - len(ELLIPSIS)) // 2
_LEAD_CHARS = HIGHLIGHT_CHARS // 4  # context kept before the first mark of a cut highlight

_TAG_SPLIT = re.compile(f"({re.escape(MARK_OPEN)}|{re.escape(MARK_CLOSE)})")
_RUN = re.compile(r"\s+|\S+")


def _shorten(run: str) -> str:
    """A token of more than `_RUN_CHARS` as its two ends around "...", a longer space run
    as one space (one line break when it holds one)."""
    if len(run) <= _RUN_CHARS:
        return run
    if run.isspace():
        return "\n" if "\n" in run else " "
    return run[:_RUN_HALF] + ELLIPSIS + run[-_RUN_HALF:]


def _units(highlight: str) -> list[str]:
    """The pieces a cut may fall between: space runs, tokens and whole `<mark>` pairs, runs
    shortened; a `</mark>` closing nothing is dropped, a `<mark>` left open is closed."""
    units: list[str] = []
    inner: list[str] | None = None  # the runs of the open mark pair
    for part in _TAG_SPLIT.split(highlight):
        if part == MARK_OPEN:
            inner = [] if inner is None else inner
        elif part == MARK_CLOSE:
            if inner is not None:
                units.append(MARK_OPEN + "".join(inner) + MARK_CLOSE)
            inner = None
        else:
            runs = [_shorten(run) for run in _RUN.findall(part)]
            (units if inner is None else inner).extend(runs)
    if inner is not None:
        units.append(MARK_OPEN + "".join(inner) + MARK_CLOSE)
    return units


def bound_highlight(highlight: str) -> str:
    """`highlight` when it has at most `HIGHLIGHT_CHARS` characters (all but ~0.03% of
    real ones); otherwise (a minified line, a base64 blob, a table padded with spaces) its
    tokens of more than `_RUN_CHARS` characters cut to their ends around "...", its longer
    space runs to one space and, if still too long, the window of whole tokens and mark
    pairs that holds the first mark, "..." where it was cut. Marks stay paired (a pair
    is cut inside only when it alone is too long, and then closed); linear in its length."""
    if len(highlight) <= HIGHLIGHT_CHARS:
        return highlight
    units = _units(highlight)
    if not units:  # only `</mark>`s closing nothing
        return ""
    first = next((i for i, u in enumerate(units) if u.startswith(MARK_OPEN)), 0)
    room = HIGHLIGHT_CHARS - 2 * len(ELLIPSIS)
    start = first
    if sum(len(u) for u in units[: first + 1]) <= room:
        start = 0
    else:
        lead = 0
        while start > 0 and lead + len(units[start - 1]) <= _LEAD_CHARS:
            start -= 1
            lead += len(units[start])
        while start < first and units[start].isspace():
            start += 1
    if len(units[start]) > room:  # a mark pair of a very long phrase: cut inside the pair
        keep = room - len(MARK_OPEN + ELLIPSIS + MARK_CLOSE)
        units[start] = units[start][: len(MARK_OPEN) + keep] + ELLIPSIS + MARK_CLOSE
    end, used = start, 0
    while end < len(units) and used + len(units[end]) <= room:
        used += len(units[end])
        end += 1
    body = "".join(units[start:end])
    if end < len(units):
        body = body.rstrip() + ELLIPSIS
    return (ELLIPSIS if start > 0 else "") + body
