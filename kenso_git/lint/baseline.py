"""Baselines: record today's findings, later report only findings that are new.

A finding is keyed by file, rule and its offending text (`Violation.subject`), never by line,
so edits that shift lines keep old findings matched. Keys are counted: a second identical
finding in the same file is new.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from kenso_git.errors import UsageError
from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Violation
from kenso_git.lint.runner import make_report
from kenso_git.lint.runner import score_file

FORMAT_VERSION = 1
Key = tuple[str, str, str]


def _key(v: Violation) -> Key:
    return (v.path, v.rule, v.subject)


def write_baseline(report: LintReport, path: Path) -> int:
    """Write every finding of `report` to `path`; return how many were recorded.

    Raises:
        UsageError: `path` holds something else than a baseline (a page named by mistake:
            `--write-baseline docs/guide.md` would have replaced it), or cannot be written.
    """
    _check_replaceable(path)
    entries = sorted(_key(v) for v in report.violations())
    data = {
        "tool": "kenso-git",
        "version": FORMAT_VERSION,
        "findings": [{"file": f, "rule": r, "subject": s} for f, r, s in entries],
    }
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as err:
        raise UsageError(
            f"cannot write the baseline {path}: {err.strerror or err}", path=str(path)
        ) from None
    return len(entries)


def _check_replaceable(path: Path) -> None:
    """Refuse to overwrite a file that is neither empty nor a baseline `--baseline` reads."""
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return
    try:
        load_baseline(path)
    except UsageError:
        raise UsageError(
            f"{path} is not a kenso-git baseline: not overwritten",
            path=str(path),
            hint="name a new file, e.g. "
            "`kenso-git lint --write-baseline .kenso-baseline.json docs/`",
        ) from None


def load_baseline(path: Path) -> Counter[Key]:
    """Read a baseline file.

    Raises:
        UsageError: the file is missing or is not a kenso-git baseline.
    """
    hint = f"create it with `kenso-git lint --write-baseline {path}`"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"baseline file not found: {path}", hint=hint) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UsageError(f"cannot read baseline {path}: {err}", hint=hint) from None
    findings = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise UsageError(f"{path} is not a kenso-git baseline (no findings list)", hint=hint)
    return Counter(
        (str(f.get("file", "")), str(f.get("rule", "")), str(f.get("subject", "")))
        for f in findings
    )


def apply_baseline(report: LintReport, known: Counter[Key]) -> LintReport:
    """Drop findings the baseline holds; rescore the files from what is left."""
    budget = Counter(known)
    hidden = 0
    results = []
    for result in report.files:
        kept = []
        for v in result.violations:
            key = _key(v)
            if budget[key] > 0:
                budget[key] -= 1
                hidden += 1
            else:
                kept.append(v)
        results.append(FileResult(result.path, score_file(kept), tuple(kept)))
    return make_report(results, fail_under=report.fail_under, baselined=hidden)
