"""Linting for the front ends: running the rules on a session, reports (text, JSON, SARIF),
the streamed summary of an ingest, the language server's live corpus.

A facade of the library API (see `api/lazy.py`).
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.index.report import FileResult as IngestFile
    from kenso_git.index.report import IngestReport as IngestReport
    from kenso_git.lint import report as report
    from kenso_git.lint.config import load_lint_config as load_lint_config
    from kenso_git.lint.deferred import Partial as Partial
    from kenso_git.lint.live import LiveCorpus as LiveCorpus
    from kenso_git.lint.model import LintReport as LintReport
    from kenso_git.lint.model import Severity as Severity
    from kenso_git.lint.model import Violation as Violation
    from kenso_git.lint.report import render_summary as render_summary
    from kenso_git.lint.report import report_to_json as report_to_json
    from kenso_git.lint.root import lint_workspace as lint_workspace
    from kenso_git.lint.sarif import report_to_sarif as report_to_sarif
    from kenso_git.lint.session import run_lint as run_lint
    from kenso_git.lint.streamed import FirstHalves as FirstHalves
    from kenso_git.lint.streamed import Packed as Packed
    from kenso_git.lint.streamed import Spilled as Spilled
    from kenso_git.lint.streamed import summary as summary
    from kenso_git.lint.streamed import summary_inputs as summary_inputs
    from kenso_git.lint.treeindex import SITE_CONFIG_NAMES as SITE_CONFIG_NAMES
    from kenso_git.text.jsonout import Streamed as Streamed
    from kenso_git.text.jsonout import chunks as chunks
    from kenso_git.text.jsonout import iter_json as iter_json
    from kenso_git.text.parse import Document as Document

__all__ = [
    "SITE_CONFIG_NAMES",
    "Document",
    "FirstHalves",
    "IngestFile",
    "IngestReport",
    "LintReport",
    "LiveCorpus",
    "Packed",
    "Partial",
    "Severity",
    "Spilled",
    "Streamed",
    "Violation",
    "chunks",
    "iter_json",
    "lint_workspace",
    "load_lint_config",
    "render_summary",
    "report",
    "report_to_json",
    "report_to_sarif",
    "run_lint",
    "summary",
    "summary_inputs",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "Document": ("kenso_git.text.parse", "Document"),
    "IngestFile": ("kenso_git.index.report", "FileResult"),
    "IngestReport": ("kenso_git.index.report", "IngestReport"),
    "LintReport": ("kenso_git.lint.model", "LintReport"),
    "LiveCorpus": ("kenso_git.lint.live", "LiveCorpus"),
    "FirstHalves": ("kenso_git.lint.streamed", "FirstHalves"),
    "Packed": ("kenso_git.lint.streamed", "Packed"),
    "Spilled": ("kenso_git.lint.streamed", "Spilled"),
    "Partial": ("kenso_git.lint.deferred", "Partial"),
    "SITE_CONFIG_NAMES": ("kenso_git.lint.treeindex", "SITE_CONFIG_NAMES"),
    "Severity": ("kenso_git.lint.model", "Severity"),
    "Streamed": ("kenso_git.text.jsonout", "Streamed"),
    "Violation": ("kenso_git.lint.model", "Violation"),
    "chunks": ("kenso_git.text.jsonout", "chunks"),
    "iter_json": ("kenso_git.text.jsonout", "iter_json"),
    "lint_workspace": ("kenso_git.lint.root", "lint_workspace"),
    "load_lint_config": ("kenso_git.lint.config", "load_lint_config"),
    "render_summary": ("kenso_git.lint.report", "render_summary"),
    "report": ("kenso_git.lint.report", None),
    "report_to_json": ("kenso_git.lint.report", "report_to_json"),
    "report_to_sarif": ("kenso_git.lint.sarif", "report_to_sarif"),
    "run_lint": ("kenso_git.lint.session", "run_lint"),
    "summary": ("kenso_git.lint.streamed", "summary"),
    "summary_inputs": ("kenso_git.lint.streamed", "summary_inputs"),
}

__getattr__ = resolver(__name__, _NAMES)
