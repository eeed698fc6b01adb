"""KS findings as LSP diagnostics: lines and columns as the client counts them (in the
position encoding agreed with it), the span a finding underlines, its severity."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from lsprotocol import types

from kenso_git.api.lint import Severity
from kenso_git.api.lint import Violation

SOURCE = "kenso-git"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}

UTF16 = "utf-16"  # LSP's default unit; a client may agree to utf-8 or utf-32 instead
_BOM = "\ufeff"
# A line ends at `\r\n`, `\r` or `\n`, for LSP and for the linter (universal newlines,
# `text.parse`) alike; `str.splitlines` also breaks at a form feed, `\x85` or U+2028.
_BREAK = re.compile(r"\r\n|\r|\n")


def client_column(line: str, column: int, encoding: str = UTF16) -> int:
    """The offset of code point `column` (0-based) of `line` in the units of the position
    encoding agreed with the client (Neovim and Helix offer utf-8 first)."""
    head = line[:column]
    if head.isascii() or encoding == "utf-32":
        return len(head)
    if encoding == "utf-8":
        return len(head.encode("utf-8"))
    return len(head.encode("utf-16-le")) // 2


def code_point_column(line: str, units: int, encoding: str = UTF16) -> int:
    """The code-point index of the offset `units` (in the agreed encoding) of `line`."""
    if line.isascii():
        return units
    if encoding == "utf-32":  # a code point per unit
        return min(units, len(line))
    counted = 0
    for index, char in enumerate(line):
        if counted >= units:
            return index
        if encoding == "utf-8":
            counted += len(char.encode("utf-8"))
        else:
            counted += 2 if ord(char) > 0xFFFF else 1
    return len(line)


@dataclass(frozen=True, slots=True)
class Page:
    """An open document's text as the client counts positions: its lines without their
    breaks, a byte-order mark (which the linter drops) kept at the start of the first."""

    lines: tuple[str, ...]
    encoding: str
    lead: int  # 1 when the text opens with a mark: the linter's columns on line 1 follow it

    @classmethod
    def of(cls, text: str, encoding: str = UTF16) -> Page:
        """The page of the editor's `text`."""
        return cls(tuple(_BREAK.split(text)), encoding, 1 if text.startswith(_BOM) else 0)

    def line(self, number: int) -> str:
        """Line `number` (1-based, as the linter counts), "" past the end."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def index(self, number: int, column: int) -> int:
        """The code-point index in `line(number)` of the linter's 1-based `column`."""
        return column - 1 + (self.lead if number == 1 else 0)

    def position(self, number: int, index: int) -> types.Position:
        """The client's position of code point `index` of line `number` (1-based)."""
        return types.Position(number - 1, client_column(self.line(number), index, self.encoding))

    def column(self, at: types.Position) -> int:
        """The linter's 1-based column at the client's position `at` (1 on a mark)."""
        index = code_point_column(self.line(at.line + 1), at.character, self.encoding)
        return max(index - (self.lead if at.line == 0 else 0), 0) + 1

    def span(self, v: Violation) -> types.Range:
        """What the finding `v` underlines: its subject as written there (a link's
        destination with its `<...>` and escapes), else the rest of the line."""
        line = self.line(v.line)
        start = self.index(v.line, v.column)
        width = _written_width(line, start, v)
        end = start + width if width else len(line)
        return types.Range(self.position(v.line, start), self.position(v.line, end))

    def edit_range(self, v: Violation) -> types.Range | None:
        """Where the fix of `v` replaces its text, or None: no fix, or its text no longer
        stands there (edited since: the next diagnostics bring a fresh fix)."""
        fix = v.fix
        if fix is None:
            return None
        start = self.index(fix.line, fix.column)
        if self.line(fix.line)[start : start + len(fix.old)] != fix.old:
            return None
        return types.Range(
            self.position(fix.line, start), self.position(fix.line, start + len(fix.old))
        )


# What resolves in a link destination (CommonMark 2.4, 2.5): a backslash escape of ASCII
# punctuation (group 1), and a character reference
_RESOLVED = re.compile(
    r"\\([!-/:-@\[-`{-~])|&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});"
)


def _written_width(line: str, start: int, v: Violation) -> int:
    """How many characters of `line` from `start` write the subject of `v`, 0 if they do
    not. A link's subject is its target with `<...>` unwrapped and escapes and references
    resolved, while the text there is as written: `<no such.md>`, `a\\_b.md`, `c&amp;d.md`."""
    subject = v.subject
    if not subject or line.startswith(subject, start):
        return len(subject)
    angled = line.startswith("<", start)
    at, read = start + angled, 0  # read: the characters of `subject` written so far
    while read < len(subject):
        ref = _RESOLVED.match(line, at)
        meant = (ref.group(1) or html.unescape(ref.group())) if ref is not None else ""
        if ref is not None and subject.startswith(meant, read):
            at, read = ref.end(), read + len(meant)
        elif line.startswith(subject[read], at):
            at, read = at + 1, read + 1
        else:
            return 0
    if angled and not line.startswith(">", at):
        return 0
    return at + angled - start


def diagnostic(v: Violation, page: Page) -> types.Diagnostic:
    """The finding `v` on `page` (the document's text) for the client."""
    return types.Diagnostic(
        range=page.span(v),
        message=v.message,
        severity=_SEVERITY[v.severity],
        code=v.rule,
        source=SOURCE,
        data={"name": v.name},
    )
