"""Retrieval-quality lint for Markdown docs (kenso's KS rules).

The API the CLI and ingest share: `lint_documents` over parsed documents, then one of the
renderers. Nothing here reads the disk except `select_documents` and the baseline helpers.
"""

from __future__ import annotations

from kenso_git.lint.config import LintConfig
from kenso_git.lint.config import load_lint_config
from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Violation
from kenso_git.lint.report import render_detail
from kenso_git.lint.report import render_summary
from kenso_git.lint.report import report_to_json
from kenso_git.lint.runner import lint_documents

__all__ = [
    "CorpusFacts",
    "LintConfig",
    "LintReport",
    "Severity",
    "Violation",
    "build_facts",
    "lint_documents",
    "load_lint_config",
    "render_detail",
    "render_summary",
    "report_to_json",
]
