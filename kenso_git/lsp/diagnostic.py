"""KS findings as LSP diagnostics: columns in the position encoding agreed with the client,
the span a finding underlines, its severity."""

from __future__ import annotations

from collections.abc import Sequence

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


def span(
    v: Violation, lines: Sequence[str], encoding: str
) -> tuple[types.Position, types.Position]:
    """What the finding `v` underlines: its subject, else the rest of the line."""
    line = lines[v.line - 1] if 0 < v.line <= len(lines) else ""
    start = v.column - 1
    width = len(v.subject) if v.subject and line[start:].startswith(v.subject) else 0
    end = start + width if width else len(line)
    if v.column == 1 and not width:
        end = len(line)
    return (
        types.Position(v.line - 1, client_column(line, start, encoding)),
        types.Position(v.line - 1, client_column(line, end, encoding)),
    )


def diagnostic(v: Violation, lines: Sequence[str], encoding: str) -> types.Diagnostic:
    """The finding `v` on `lines` (the document's text) for the client."""
    start, end = span(v, lines, encoding)
    return types.Diagnostic(
        range=types.Range(start, end),
        message=v.message,
        severity=_SEVERITY[v.severity],
        code=v.rule,
        source=SOURCE,
        data={"name": v.name},
    )
