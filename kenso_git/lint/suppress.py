"""Inline switches: `<!-- kenso-disable KS007 -->` ... `<!-- kenso-enable KS007 -->`,
`<!-- kenso-disable-next-line KS016 -->` and `<!-- kenso-disable-file KS003 -->`.

Without rule ids a directive covers every rule. Ids may be separated by spaces or commas,
and rule names (`generic-heading`) work too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.lint.rules import RULES_BY_NAME

_DIRECTIVE = re.compile(
    r"<!--\s*kenso-(disable-next-line|disable-file|disable|enable)\b([^>]*?)-->", re.IGNORECASE
)
ALL = "*"


@dataclass(frozen=True, slots=True)
class Suppressions:
    """Which rules are off for the whole file, and which on which lines."""

    file: frozenset[str]
    lines: dict[int, frozenset[str]]

    def covers(self, rule: str, line: int) -> bool:
        if ALL in self.file or rule in self.file:
            return True
        off = self.lines.get(line)
        return off is not None and (ALL in off or rule in off)


NONE = Suppressions(frozenset(), {})


def _ids(text: str) -> set[str]:
    out: set[str] = set()
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        upper = token.upper()
        if upper in RULES_BY_ID:
            out.add(upper)
        elif token in RULES_BY_NAME:
            out.add(RULES_BY_NAME[token].id)
    return out or {ALL}


def _close(open_from: dict[str, int], ids: set[str], last: int, lines: dict[int, set[str]]) -> None:
    for rule in set(open_from) if ALL in ids else ids:
        start = open_from.pop(rule, None)
        if start is not None:
            for n in range(start, last + 1):
                lines.setdefault(n, set()).add(rule)


def parse_suppressions(text: str) -> Suppressions:
    """Read the directives of a file (a cheap substring test skips files without any)."""
    if "kenso-" not in text:
        return NONE
    whole: set[str] = set()
    lines: dict[int, set[str]] = {}
    last_line = text.count("\n") + 1
    open_from: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        for match in _DIRECTIVE.finditer(line):
            kind, ids = match.group(1).lower(), _ids(match.group(2))
            if kind == "disable-file":
                whole |= ids
            elif kind == "disable-next-line":
                lines.setdefault(number + 1, set()).update(ids)
            elif kind == "disable":
                for rule in ids:
                    open_from.setdefault(rule, number)
            else:
                _close(open_from, ids, number, lines)
    _close(open_from, set(open_from), last_line, lines)
    return Suppressions(frozenset(whole), {n: frozenset(r) for n, r in lines.items()})
