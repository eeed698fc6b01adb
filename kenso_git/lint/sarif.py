"""SARIF 2.1.0 output (for GitHub code scanning and other SARIF viewers)."""

from __future__ import annotations

import hashlib
from urllib.parse import quote

from kenso_git import __version__
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Violation
from kenso_git.lint.rules import ALL_RULES

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _fingerprint(v: Violation) -> str:
    key = "\x00".join((v.path, v.rule, v.subject or v.message))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def artifact_uri(path: str) -> str:
    """A repo-relative path as the relative URI reference SARIF's `artifactLocation.uri`
    is (RFC 3986): `100% sure.md` -> `100%25%20sure.md`, `/` kept as the separator. The
    raw path was written: a viewer read `% s` as a broken escape and `%41` as `A`."""
    return quote(path, safe="/")


def _rules() -> list[dict[str, object]]:
    return [
        {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.why},
            "defaultConfiguration": {"level": _LEVEL[r.severity], "enabled": r.enabled},
            "properties": {"tags": ["documentation", "retrieval"]},
        }
        for r in ALL_RULES
    ]


def report_to_sarif(report: LintReport) -> dict[str, object]:
    """One SARIF log with one run; paths are relative to `%SRCROOT%` (the repository root)."""
    index = {r.id: i for i, r in enumerate(ALL_RULES)}
    results = [
        {
            "ruleId": v.rule,
            "ruleIndex": index[v.rule],
            "level": _LEVEL[v.severity],
            "message": {"text": v.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": artifact_uri(v.path),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "region": {"startLine": v.line, "startColumn": v.column},
                    }
                }
            ],
            "partialFingerprints": {"kensoFinding/v1": _fingerprint(v)},
        }
        for v in report.violations()
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kenso-git",
                        "version": __version__,
                        "rules": _rules(),
                    }
                },
                "results": results,
                "properties": {"score": report.score, "files": len(report.files)},
            }
        ],
    }
