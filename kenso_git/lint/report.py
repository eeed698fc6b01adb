"""Render a `LintReport`: summary (kenso's layout), detail, JSON, GitHub annotations."""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Sequence

from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Violation
from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.text.jsonout import Streamed

BRAND = "kenso-git"
RULE_LINE = "─" * 60
MAX_LISTED_ERRORS = 50
GLYPHS = {Severity.ERROR: "✗", Severity.WARNING: "▲", Severity.INFO: "i"}
_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "34"}


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def glyph(self, severity: Severity) -> str:
        return self.paint(GLYPHS[severity], _COLOURS[severity])

    def bold(self, text: str) -> str:
        return self.paint(text, "1")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _totals(report: LintReport) -> str:
    return (
        f"{_plural(report.errors, 'error')} · {_plural(report.warnings, 'warning')} · "
        f"{_plural(report.info, 'suggestion')}"
    )


def _rule_rows(report: LintReport, style: _Style, *, with_id: bool) -> list[str]:
    files: dict[str, set[str]] = defaultdict(set)
    severity: dict[str, Severity] = {}
    for v in report.violations():
        files[v.rule].add(v.path)
        severity.setdefault(v.rule, v.severity)
    order = sorted(files, key=lambda r: (-(RULES_BY_ID[r].impact or 0), r))
    rows = []
    for rule_id in order:
        rule = RULES_BY_ID[rule_id]
        impact = f"+{rule.impact}%" if rule.impact else ""
        count = len(files[rule_id])
        middle = f" ({rule_id})" if with_id else ""
        rows.append(
            f"  {style.glyph(severity[rule_id])} {rule.action:<40}{middle} "
            f"{_plural(count, 'file'):>10}{impact:>6}"
        )
    return rows


def _error_lines(report: LintReport) -> list[str]:
    errors = [v for v in report.violations() if v.severity is Severity.ERROR]
    lines = [v.format_line() for v in errors[:MAX_LISTED_ERRORS]]
    if len(errors) > MAX_LISTED_ERRORS:
        lines.append(f"… and {len(errors) - MAX_LISTED_ERRORS} more errors")
    return lines


def _command() -> str:
    """How to run kenso-git again: the bare name when PATH finds it (pre-commit's venv is not
    on the user's PATH), else this installation's absolute script."""
    import shutil

    from kenso_git.repo.executable import SCRIPT_NAME
    from kenso_git.repo.executable import find_script

    if shutil.which(SCRIPT_NAME):
        return BRAND
    return find_script() or f"{sys.executable} -m kenso_git"


def _again(paths: Sequence[object], flags: Sequence[str] = ()) -> str:
    """The `lint --detail` command naming `paths` (and `flags`) as given on the command line:
    the bare command would lint the whole repository, not what was summed up."""
    import shlex

    named = [shlex.quote(str(p)) for p in paths]
    if any(str(p).startswith("-") for p in paths):
        named.insert(0, "--")  # `-draft.md` would be read as options
    return " ".join([f"{_command()} lint --detail", *flags, *named])


def render_summary(
    report: LintReport,
    *,
    color: bool,
    for_ingest: bool = False,
    paths: Sequence[object] = (),
    flags: Sequence[str] = (),
) -> str:
    """kenso's summary: score, one row per fired rule, totals; error findings listed; its
    `lint --detail` hint names `paths` and `flags` (the command line's)."""
    style = _Style(color)
    dirty = sum(1 for f in report.files if f.violations)
    if for_ingest:
        lines = ["", style.bold(f"Quality score: {report.score}/100")]
        lines += _rule_rows(report, style, with_id=False)
        if dirty:
            again = _again(paths, flags)
            lines.append(f"{_plural(dirty, 'file')} with issues · → run `{again}`")
        return "\n".join(lines)
    lines = [style.bold(f"{BRAND} · lint {_plural(len(report.files), 'file')}"), ""]
    lines.append(style.bold(f"Score: {report.score}/100"))
    if report.baselined:
        lines.append(f"({_plural(report.baselined, 'finding')} hidden by the baseline)")
    if not dirty:
        lines += ["", f"{style.paint('✓', '32')} all checks passed", *_skipped(report)]
        return "\n".join(lines)
    lines += ["", RULE_LINE, *_rule_rows(report, style, with_id=True), RULE_LINE, ""]
    lines.append(_totals(report))
    lines += _skipped(report)
    errors = _error_lines(report)
    if errors:
        lines += ["", *errors]
    lines += ["", f"→ run `{_again(paths, flags)}` to see every finding"]
    return "\n".join(lines)


def _sorted_for_detail(violations: Iterable[Violation]) -> list[Violation]:
    return sorted(violations, key=lambda v: (v.severity.rank, v.rule))


def _detail_file(result: FileResult, style: _Style) -> list[str]:
    lines = [style.bold(f"{result.path} (score: {result.score}/100)")]
    items = _sorted_for_detail(result.violations)
    for i, v in enumerate(items):
        branch = "└─" if i == len(items) - 1 else "├─"
        where = f"{v.line}:{v.column}"
        lines.append(
            f"  {branch} {style.glyph(v.severity)} {v.rule} {v.name:<20} {where:<7} {v.message}"
        )
    return [*lines, ""]


def render_detail(report: LintReport, *, color: bool) -> str:
    """Every finding, file by file, then the score and totals."""
    style = _Style(color)
    lines = [style.bold(f"{BRAND} · lint {_plural(len(report.files), 'file')} (detail)"), ""]
    for result in report.files:
        if result.violations:
            lines += _detail_file(result, style)
    lines += [RULE_LINE, f"Score: {report.score}/100 ({_plural(len(report.files), 'file')})"]
    lines.append(_totals(report))
    lines += _skipped(report)
    if report.baselined:
        lines.append(f"({_plural(report.baselined, 'finding')} hidden by the baseline)")
    return "\n".join(lines)


def _skipped(report: LintReport) -> list[str]:
    """`not checked offline: external URL (12), scheme link (3)` (#30), when any was."""
    if not report.skipped:
        return []
    return ["not checked offline: " + ", ".join(f"{why} ({n})" for why, n in report.skipped)]


def report_to_json(report: LintReport, *, streamed: bool = False) -> dict[str, object]:
    """kenso's `lint --json` object, plus `line` and `column` per issue. `streamed`: the
    violations as a `Streamed` list, made file by file as `text.jsonout.iter_json` writes
    them (a report of 100,000 files is never held as objects)."""
    files = (_file_json(result) for result in report.files if result.violations)
    return {
        "score": report.score,
        "files": len(report.files),
        "summary": {"errors": report.errors, "warnings": report.warnings, "info": report.info},
        **({"skipped": dict(report.skipped)} if report.skipped else {}),
        "violations": Streamed(files) if streamed else list(files),
    }


def _file_json(result: FileResult) -> dict[str, object]:
    return {
        "file": result.path,
        "score": result.score,
        "issues": [
            {
                "rule": v.rule,
                "severity": v.severity.value,
                "name": v.name,
                "message": v.message,
                "line": v.line,
                "column": v.column,
            }
            for v in result.violations
        ],
    }


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: LintReport) -> str:
    """GitHub Actions workflow commands, one annotation per finding."""
    out = []
    for v in report.violations():
        props = (
            f"file={_escape_property(v.path)},line={v.line},col={v.column},"
            f"title={_escape_property(f'{v.rule} {v.name}')}"
        )
        out.append(f"::{_GITHUB_LEVEL[v.severity]} {props}::{_escape_data(v.message)}")
    return "\n".join(out)
