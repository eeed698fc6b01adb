"""The heading ids of Python-Markdown's `toc` extension, the anchors an MkDocs site renders
(pure; linear in the number and length of the headings).

`toc_slug` takes a heading's rendered text to ASCII (NFKD, letters past ASCII dropped),
drops every character that is not a word character, a space or a `-`, trims and
lower-cases it, then makes each run of spaces and `-` one `-`: "Users & UsersFile" is
`users-usersfile` (GitHub's `users--usersfile`). `TocIds` hands out ids as the extension's
`unique` does: a taken or empty id gets `_1`, and one that ends in `_<number>` has the
number raised (`x`, `x_1`, `x_2`), never an id already taken (`{#id}`s included).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_DROP = re.compile(r"[^\w\s-]")
_RUN = re.compile(r"[-\s]+")
_NUMBERED = re.compile(r"(.*)_([0-9]{1,18})")  # (a longer number: taken as no number)


def toc_slug(text: str) -> str:
    """Python-Markdown's default slug of a heading's rendered text (no `_1` suffix)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _RUN.sub("-", _DROP.sub("", text).strip().lower())


class TocIds:
    """The `toc` extension's unique ids. Which `_<n>` is free is found in amortised
    constant time: `_next[(stem, n)]` is a number past a run of taken `stem_<n>` ids (ids
    are never given back), so a page of many like headings is not quadratic."""

    __slots__ = ("_next", "taken")

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self.taken = set(taken)
        self._next: dict[tuple[str, int], int] = {}

    def take(self, base: str) -> str:
        """The id of a heading whose slug is `base`, now taken."""
        if base and base not in self.taken:
            self.taken.add(base)
            return base
        numbered = _NUMBERED.fullmatch(base)
        stem, number = (numbered[1], int(numbered[2]) + 1) if numbered else (base, 1)
        number = self._free(stem, number)
        found = f"{stem}_{number}"
        self.taken.add(found)
        return found

    def _free(self, stem: str, number: int) -> int:
        """The least `n >= number` whose `stem_<n>` is not taken."""
        passed = []
        while True:
            key = (stem, number)
            ahead = self._next.get(key)
            if ahead is not None:
                passed.append(key)
                number = ahead
            elif f"{stem}_{number}" in self.taken:
                passed.append(key)
                number += 1
            else:
                break
        for key in passed:  # each run is walked once: the next walk jumps it
            self._next[key] = number
        return number
