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
from collections.abc import Iterable
from typing import Protocol

from kenso_git.repo.wildmatch import translate


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
    True, all are excluded; False, a negation may re-include one; None, neither."""
    for line in lines:
        if line.negative:
            if _may_match_an_entry(line, below, fold):
                return False
        elif not line.dir_only and _matches_every_entry(line, below, fold):
            return True
    return None


def _is_stars(part: bytes) -> bool:
    return bool(part) and part.strip(b"*") == b""


def _matches_every_entry(line: Line, below: bytes, fold: bool) -> bool:
    """Whether `line` matches `below/NAME` for every NAME: its last parts are stars that can
    take exactly one more component (`*`, or any number of `**` with at most one `*`), and
    the parts before them match `below` itself."""
    if line.on_name:
        return _is_stars(line.body)  # `*`, `**`: any name in any folder
    parts = line.body.split(b"/")
    singles = 0
    for cut in range(len(parts) - 1, -1, -1):
        if not _is_stars(parts[cut]):
            return False
        singles += parts[cut] == b"*"
        if singles > 1:
            return False  # `*/*` takes two components, never one
        if _fullmatches(parts[:cut], below, fold):
            return True
    return False


def _may_match_an_entry(line: Line, below: bytes, fold: bool) -> bool:
    """Whether the negation `line` could match some `below/NAME` (when unsure, it could)."""
    if line.on_name:
        return True  # a name of any folder: some entry may bear it
    parts = line.body.split(b"/")
    if any(b"**" in part for part in parts):
        return True  # spans any number of folders
    depth = below.count(b"/") + 1 if below else 0
    return len(parts) == depth + 1 and _fullmatches(parts[:-1], below, fold)


def _fullmatches(parts: list[bytes], below: bytes, fold: bool) -> bool:
    if not parts:
        return below == b""
    regex = translate(b"/".join(parts), fold=fold)
    return regex is not None and re.fullmatch(regex, below, re.DOTALL) is not None
