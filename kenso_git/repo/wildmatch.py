"""git's wildmatch patterns (wildmatch.c) as regular expressions over a path's bytes.

`translate(pattern, fold=...)` gives a regex whose full match is wildmatch's verdict with
WM_PATHNAME, and with WM_CASEFOLD under `fold` on a subject lower-cased first
(`bytes.lower()`, ASCII only, as git folds): `?`, `[...]` and `*` never match a slash, and
`**` crosses slashes only as a whole component (`**/x`, `x/**/y`, `x/**`). Pure, no I/O:
`repo.ignore` reads the rule files and decides what a pattern is matched against.

A backtracking regex takes polynomial time on patterns such as `*a*a*a*b` or
`**/*a/**/*a/**/*b` (git's matcher gives up early instead: WM_ABORT_ALL,
WM_ABORT_TO_STARSTAR). So each unit is matched atomically (the earliest place, never
revisited) wherever the next star can take up whatever a later place would have left: a `*`
and the fixed part after it when another star follows (what it leaves holds no slash);
a `**` with the fixed part and the single stars after it, up to the next `**` (what it
leaves is whole folders, as the next `**` takes). Only the last unit backtracks, once per
slash for a `**`.
"""

from __future__ import annotations

from collections.abc import Callable

from kenso_git.records import NamedTuple

ESCAPED = [b"\\x%02x" % byte for byte in range(256)]
NEVER = b"(?!)"  # a regex that matches nothing

# The kinds of star: a `*` (or `**` glued to a name) within one component; `**` at the end
# or before `\/`: anything; `**/`: nothing, or anything that ends with a slash.
_ONE, _ANY, _DIRS = 0, 1, 2
_GREEDY = {_ONE: b"[^/]*", _ANY: b".*", _DIRS: b"(?:.*/)?"}
_EARLIEST = {_ONE: b"[^/]*?", _ANY: b".*?", _DIRS: b"(?:.*?/)??"}

Token = bytes | int  # a regex matching exactly one byte, or a star's kind


def translate(pattern: bytes, *, fold: bool) -> bytes | None:
    """The regex of `pattern`; None when it can match nothing (a dangling backslash, a
    malformed `[...]`: git then matches nothing either)."""
    tokens = _tokens(pattern, fold)
    if tokens is None:
        return None
    head: list[bytes] = []
    stars: list[tuple[int, list[bytes]]] = []  # each star and the fixed part after it
    for token in tokens:
        if isinstance(token, int):
            stars.append((token, []))
        else:
            (stars[-1][1] if stars else head).append(token)
    out = [b"".join(head)]
    i = 0
    while i < len(stars):
        star, fixed = stars[i]
        end = i + 1  # a `**` takes the single stars up to the next `**` into its unit
        if star != _ONE:
            while end < len(stars) and stars[end][0] == _ONE:
                end += 1
        # each single star after the first: atomic, unless it is the pattern's last
        inner = [
            _atomic(_ONE, f) if k < len(stars) else _GREEDY[_ONE] + b"".join(f)
            for k, (_s, f) in enumerate(stars[i + 1 : end], start=i + 2)
        ]
        if end == len(stars):  # the last unit: its first star backtracks, once per slash
            out.append(_GREEDY[star] + b"".join([*fixed, *inner]))
        else:
            out.append(_atomic(star, [*fixed, *inner]))
        i = end
    return b"".join(out)


def _atomic(star: int, after: list[bytes]) -> bytes:
    """`star` matched at its earliest place with what follows it, never revisited."""
    return b"(?>" + _EARLIEST[star] + b"".join(after) + b")"


def _tokens(pattern: bytes, fold: bool) -> list[Token] | None:
    out: list[Token] = []
    i, end = 0, len(pattern)
    while i < end:
        c = pattern[i]
        if c == 0x5C:  # `\x`: x itself, its case kept (git compares it unfolded)
            if i + 1 == end:
                return None
            out.append(ESCAPED[pattern[i + 1]])
            i += 2
        elif c == 0x3F:  # ?
            out.append(b"[^/]")
            i += 1
        elif c == 0x2A:  # *
            kind, i = _star(pattern, i)
            out.append(kind)
        elif c == 0x5B:  # [
            found = _bracket(pattern, i + 1, fold)
            if found is None:
                return None
            out.append(found[0])
            i = found[1]
        else:
            out.append(ESCAPED[c + 0x20 if fold and 0x41 <= c <= 0x5A else c])
            i += 1
    return out


def _star(pattern: bytes, i: int) -> tuple[int, int]:
    """The kind of the run of stars at `i`, and the index after it (and after the slash of
    `**/`). A run is `**` when it stands alone between slashes or the ends of the pattern."""
    j = i
    while j < len(pattern) and pattern[j] == 0x2A:
        j += 1
    alone = j - i > 1 and (i == 0 or pattern[i - 1] == 0x2F)
    if alone and j < len(pattern) and pattern[j] == 0x2F:
        return _DIRS, j + 1
    if alone and (j == len(pattern) or pattern[j : j + 2] == b"\\/"):
        return _ANY, j
    return _ONE, j


_CLASSES: dict[bytes, Callable[[int], bool]] = {  # git's sane ctype (ASCII only)
    b"alnum": lambda t: bytes([t]).isalnum(),
    b"alpha": lambda t: bytes([t]).isalpha(),
    b"blank": lambda t: t in (0x20, 0x09),
    b"cntrl": lambda t: t < 0x20 or t == 0x7F,
    b"digit": lambda t: 0x30 <= t <= 0x39,
    b"graph": lambda t: 0x21 <= t <= 0x7E,
    b"lower": lambda t: 0x61 <= t <= 0x7A,
    b"print": lambda t: 0x20 <= t <= 0x7E,
    b"punct": lambda t: 0x21 <= t <= 0x7E and not bytes([t]).isalnum(),
    b"space": lambda t: t in (0x09, 0x0A, 0x0D, 0x20),  # no \v, \f
    b"upper": lambda t: 0x41 <= t <= 0x5A,
    b"xdigit": lambda t: bytes([t]) in b"0123456789abcdefABCDEF",
}


class _Members(NamedTuple):
    """What one `[...]` lists, read as wildmatch reads it."""

    negated: bool
    chars: frozenset[int]
    ranges: tuple[tuple[int, int], ...]
    classes: tuple[bytes, ...]
    end: int  # index after the closing `]`

    def accepts(self, t: int, fold: bool) -> bool:
        """Whether the byte `t` of the subject (lower-cased under `fold`) matches."""
        lower = fold and 0x61 <= t <= 0x7A
        found = (
            t in self.chars
            or any(lo <= t <= hi or (lower and lo <= t - 0x20 <= hi) for lo, hi in self.ranges)
            or any(_CLASSES[name](t) or (lower and name == b"upper") for name in self.classes)
        )
        return found != self.negated and t != 0x2F  # never a slash (WM_PATHNAME)


def _bracket(pattern: bytes, i: int, fold: bool) -> tuple[bytes, int] | None:
    """The `[...]` whose first member is at `i` as a class of the bytes it matches, and the
    index after it; None when malformed. Members are compared with the subject's byte as
    folded, themselves unfolded, as git does (so under `fold`, `[A]` matches nothing)."""
    members = _members(pattern, i)
    if members is None:
        return None
    taken = [byte for byte in range(1, 256) if members.accepts(byte, fold)]
    if not taken:
        return NEVER, members.end
    runs: list[bytes] = []
    first = last = taken[0]
    for byte in [*taken[1:], -1]:
        if byte == last + 1:
            last = byte
            continue
        runs.append(ESCAPED[first] if first == last else ESCAPED[first] + b"-" + ESCAPED[last])
        first = last = byte
    return b"[" + b"".join(runs) + b"]", members.end


def _members(pattern: bytes, i: int) -> _Members | None:  # noqa: C901  # wildmatch's own loop
    def at(k: int) -> int:
        return pattern[k] if k < len(pattern) else 0

    c = at(i)
    negated = c in (0x21, 0x5E)  # `!` or `^`
    if negated:
        i += 1
        c = at(i)
    chars: set[int] = set()
    ranges: list[tuple[int, int]] = []
    classes: list[bytes] = []
    prev = 0
    while True:  # the first member may be `]` itself
        if not c:
            return None
        if c == 0x5C:
            i += 1
            c = at(i)
            if not c:
                return None
            chars.add(c)
        elif c == 0x2D and prev and at(i + 1) not in (0, 0x5D):  # a-b
            i += 1
            c = at(i)
            if c == 0x5C:
                i += 1
                c = at(i)
                if not c:
                    return None
            ranges.append((prev, c))
            c = 0  # a `-` right after a range is a member
        elif c == 0x5B and at(i + 1) == 0x3A:  # [:class:]
            close = pattern.find(b"]", i + 2)
            if close < 0:
                return None
            if close - i - 3 < 0 or pattern[close - 1] != 0x3A:
                chars.add(c)  # no `:]`: the `[` is a member, and so is what follows
            else:
                name = pattern[i + 2 : close - 1]
                if name not in _CLASSES:
                    return None
                classes.append(name)
                i, c = close, 0
        else:
            chars.add(c)
        prev = c
        i += 1
        c = at(i)
        if c == 0x5D:
            return _Members(negated, frozenset(chars), tuple(ranges), tuple(classes), i + 1)
