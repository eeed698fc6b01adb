"""Literal substrings every match of an RE2 pattern must contain, for `regex_search`'s
prefilter: a document without one of them cannot match, so RE2 never runs over it.

The extraction is conservative: it reads only the top level of the pattern (groups,
classes and escapes other than escaped punctuation end a literal run), drops a character
a quantifier may repeat zero times, and gives up (no literals, every document is searched)
on top-level alternation, case-insensitive flags and `\\Q...\\E` quoting. One pass over
the pattern: linear in its length.
"""

from __future__ import annotations

import re

_NO_LITERALS = re.compile(r"\(\?[A-Za-z-]*i|\\Q")
_REPEAT = re.compile(r"\{\d+(?:,\d*)?\}")
_ESCAPE_ARGS = {"p": 1, "P": 1, "x": 2}  # \pN, \x41 (or a {...} argument)


def _skip_escape(pattern: str, i: int) -> int:
    """The index after the escape starting at `pattern[i] == '\\\\'`."""
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    j = i + 2
    if letter in _ESCAPE_ARGS:
        if pattern.startswith("{", j):
            close = pattern.find("}", j)
            return len(pattern) if close < 0 else close + 1
        return j + _ESCAPE_ARGS[letter]
    if letter.isdigit():  # octal: up to three digits
        while j < len(pattern) and j < i + 4 and pattern[j].isdigit():
            j += 1
    return j


def _skip_class(pattern: str, i: int) -> int:
    """The index after the class starting at `pattern[i] == '['`."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):  # a leading ] is a member
        j += 1
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j = _skip_escape(pattern, j)
        elif pattern.startswith("[:", j):
            close = pattern.find(":]", j + 2)
            j = len(pattern) if close < 0 else close + 2
        elif ch == "]":
            return j + 1
        else:
            j += 1
    return j


def _skip_group(pattern: str, i: int) -> int:
    """The index after the group starting at `pattern[i] == '('`."""
    depth, j = 0, i
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j = _skip_escape(pattern, j)
            continue
        if ch == "[":
            j = _skip_class(pattern, j)
            continue
        depth += ch == "("
        depth -= ch == ")"
        j += 1
        if depth == 0:
            return j
    return j


def _has_top_level_bar(pattern: str) -> bool:
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i = _skip_escape(pattern, i)
        elif ch == "[":
            i = _skip_class(pattern, i)
        elif ch == "(":
            i = _skip_group(pattern, i)
        elif ch == "|":
            return True
        else:
            i += 1
    return False


def _quantifier(pattern: str, i: int) -> tuple[int, bool] | None:
    """(index after it, whether the atom before may be absent) of a quantifier at `i`."""
    ch = pattern[i]
    if ch in "*?+":
        end = i + 1
    else:
        repeat = _REPEAT.match(pattern, i) if ch == "{" else None
        if repeat is None:
            return None
        end = repeat.end()  # {n,m}: taken as optional, which is only ever safe
    return end + pattern.startswith("?", end), ch != "+"


def _atom_end(pattern: str, i: int) -> int:
    """The index after the non-literal atom at `i` (an escape, class, group or anchor)."""
    ch = pattern[i]
    if ch == "\\":
        return _skip_escape(pattern, i)
    if ch == "[":
        return _skip_class(pattern, i)
    if ch == "(":
        return _skip_group(pattern, i)
    return i + 1


def required_literals(pattern: str) -> tuple[bytes, ...]:
    """UTF-8 substrings that every match of `pattern` (as RE2 reads it) contains."""
    if _NO_LITERALS.search(pattern) or _has_top_level_bar(pattern):
        return ()
    runs: list[str] = []
    run: list[str] = []
    i, last_literal = 0, False
    while i < len(pattern):
        ch = pattern[i]
        quantifier = _quantifier(pattern, i)
        literal = None
        if quantifier is not None:
            if quantifier[1] and last_literal:
                run.pop()  # the atom may be absent
        elif ch == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            literal = pattern[i + 1]
        elif ch not in "\\[(.^$){":
            literal = ch
        if literal is not None:
            run.append(literal)
            i += 1 + (ch == "\\")
            last_literal = True
            continue
        if run:  # anything but a literal ends the run
            runs.append("".join(run))
            run.clear()
        i = quantifier[0] if quantifier is not None else _atom_end(pattern, i)
        last_literal = False
    if run:
        runs.append("".join(run))
    return tuple(dict.fromkeys(r.encode("utf-8") for r in runs))
