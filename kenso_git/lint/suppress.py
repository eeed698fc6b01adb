"""Inline switches: `<!-- kenso-disable KS007 -->` ... `<!-- kenso-enable KS007 -->`,
`<!-- kenso-disable-next-line KS016 -->` and `<!-- kenso-disable-file KS003 -->`.

Without rule ids a directive covers every rule. Ids may be separated by spaces or commas,
and rule names (`generic-heading`) work too. A directive is an HTML comment of one line as
Markdown reads one (`text.mdcode`): the same text inside a code span or a code block is an
example of one, as docs/rules.md writes them, and switches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.lint.rules import RULES_BY_NAME
from kenso_git.text.mdcode import code_spans
from kenso_git.text.parse import parse_document

_DIRECTIVE = re.compile(
    r"<!--[ \t]*kenso-(disable-next-line|disable-file|disable|enable)\b([^>\n]*?)-->",
    re.IGNORECASE,
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
    if "kenso-" not in text or _DIRECTIVE.search(text) is None:
        return NONE
    doc = parse_document("page.md", text)
    text = doc.text
    offset = len(text) - len(doc.body)
    comments = {start + offset for start, _ in code_spans(doc).comments()}
    whole: set[str] = set()
    lines: dict[int, set[str]] = {}
    open_from: dict[str, int] = {}
    number, counted = 1, 0
    for match in _DIRECTIVE.finditer(text):
        if match.start() not in comments:
            continue  # inside code, or in the frontmatter: no comment
        number += text.count("\n", counted, match.start())
        counted = match.start()
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
    _close(open_from, set(open_from), text.count("\n") + 1, lines)
    return Suppressions(frozenset(whole), {n: frozenset(r) for n, r in lines.items()})
