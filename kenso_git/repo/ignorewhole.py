"""Whether ignore patterns exclude everything a folder could hold, the folder itself aside.

git's `dir/**` matches every path inside `dir` but not `dir` (so `!dir/keep.md` can
re-include a file), and `git check-ignore dir` says the folder is not ignored; yet no file
under it is ever taken. `IgnoreRules.ignores_everything_in` asks the lines here, in git's
order of precedence, what they do to any one entry of the folder: a line that matches every
name there (`dir/**`, `dir/*`, `dir/**/*`, a `*` in the folder's own `.gitignore`) decides
that all are excluded, and a negation that could match one of them (`!dir/keep.md`,
`!*.md`) that some may not be. Every deeper path lies in an excluded folder then, which
nothing re-includes. One look at each line, judged from its text: a combination of partial
lines that happens to cover every name (`dir/*.md` with `dir/*.txt`...) is not recognised.
Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from kenso_git.repo.wildmatch import translate

Fullmatch = Callable[[bytes], re.Match[bytes] | None]


class Line(Protocol):
    """One parsed ignore line (`repo.ignore`'s pattern)."""

    @property
    def negative(self) -> bool: ...
    @property
    def dir_only(self) -> bool: ...
    @property
    def on_name(self) -> bool: ...
    @property
    def body(self) -> bytes: ...


def every_entry_verdict(lines: Iterable[Line], below: bytes, *, fold: bool) -> bool | None:
    """What `lines` (one rule file's, the last line first) say of every entry of the folder
    `below` (relative to the file's folder, "" for that folder itself; folded under `fold`):
    True, all are excluded; False, a negation may re-include one; None, neither. A negation
    that a later line excludes again, written the same (`!x/keep.md` then `x/keep.md`),
    re-includes nothing."""
    undone: set[tuple[bytes, bool]] = set()  # later excluding lines: (body, on_name)
    for line in lines:
        if line.negative:
            if (line.body, line.on_name) not in undone and _may_match_an_entry(line, below, fold):
                return False
        elif not line.dir_only:
            if _matches_every_entry(line, below, fold):
                return True
            undone.add((line.body, line.on_name))
    return None


def _is_stars(part: bytes) -> bool:
    return bool(part) and part.strip(b"*") == b""


def _matches_every_entry(line: Line, below: bytes, fold: bool) -> bool:
    """Whether `line` matches `below/NAME` for every NAME: its last parts are stars that can
    take exactly one more component (`*`, or any number of `**` then at most one `*`), and
    the parts before them match `below` itself."""
    if line.on_name:
        return _is_stars(line.body)  # `*`, `**`: any name in any folder
    return any(match(below) is not None for match in _whole_prefixes(line.body, fold))


def _may_match_an_entry(line: Line, below: bytes, fold: bool) -> bool:
    """Whether the negation `line` could match some `below/NAME` (when unsure, it could)."""
    if line.on_name or b"**" in line.body:
        return True  # a name of any folder, or spans any number of folders: some entry may
    depth = below.count(b"/") + 1 if below else 0
    if line.body.count(b"/") != depth:
        return False
    match = _compiled(line.body.rpartition(b"/")[0], fold)  # the folder part
    return match is not None and match(below) is not None


# The answers for one line are asked of every folder a walk meets: kept per line (by its
# text, whose bytes keep their hash), a bounded number of lines at a time.
_CACHED_LINES = 4096


@lru_cache(maxsize=_CACHED_LINES)
def _whole_prefixes(body: bytes, fold: bool) -> tuple[Fullmatch, ...]:
    """The matchers of what comes before each tail of `body` that is stars taking exactly one
    more component. A run of `**` parts is taken as two (wildmatch gives `**/**/**` the
    verdict of `**/**`, and `x/**/**` that of `x/**`), so there are at most three tails
    whatever the length of the run: one regex each, not one per `**` (a line of 2,000 took
    28 s)."""
    parts = _shortened(body.split(b"/"))
    out: list[Fullmatch] = []
    for cut in range(len(parts) - 1, -1, -1):
        if not _is_stars(parts[cut]) or (parts[cut] == b"*" and cut < len(parts) - 1):
            break  # a `*` before the last part takes a component and a slash (`*/**`)
        match = _compiled(b"/".join(parts[:cut]), fold)
        if match is not None:
            out.append(match)
    return tuple(out)


def _shortened(parts: list[bytes]) -> list[bytes]:
    """`parts` with each run of `**` parts (`***` is one too) cut to two, which wildmatch
    reads alike: the prefixes before the tails of `P/**/**/...` are then `P`, `P/**` and
    `P/**/**`, and the longer ones all say what `P/**` says."""
    out: list[bytes] = []
    for part in parts:
        if len(part) > 1 and _is_stars(part):
            if out[-2:] == [b"**", b"**"]:
                continue
            part = b"**"
        out.append(part)
    return out


@lru_cache(maxsize=_CACHED_LINES)
def _compiled(pattern: bytes, fold: bool) -> Fullmatch | None:
    """The full match of `pattern` (as wildmatch with WM_PATHNAME; "" matches only ""), or
    None when it can match nothing."""
    regex = translate(pattern, fold=fold)
    return None if regex is None else re.compile(regex, re.DOTALL).fullmatch
