"""Per-rule counts on the docs-desktop corpus (kenso 2.0.0 counts in docs/compatibility.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from kenso_git.config import load_settings
from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import select_documents
from kenso_git.lint.report import render_summary
from kenso_git.lint.runner import lint_documents
from kenso_git.repo.workspace import Workspace
from tests.helpers import require_corpus

# kenso 2.0.0 agrees on every rule but KS009 (310), KS010 (13), KS014 (5): see compatibility.md.
EXPECTED = {
    "KS003": 1620, "KS004": 7, "KS005": 72, "KS006": 37, "KS007": 1004, "KS008": 2,
    "KS009": 314, "KS010": 8, "KS012": 1620, "KS015": 471, "KS016": 238,
}  # fmt: skip


@pytest.mark.corpus
def test_corpus_counts_match_kenso_except_documented_fixes() -> None:
    corpus = require_corpus()
    ws = Workspace(root=corpus.resolve(), git_dir=None, common_dir=None)  # the folder alone
    selection = select_documents(ws, load_settings(ws.root), [corpus])
    report = lint_documents(selection.targets(), corpus=selection.corpus, config=LintConfig())
    assert len(report.files) == 1620
    assert dict(Counter(v.rule for v in report.violations())) == EXPECTED
    quality = render_summary(report, color=False, for_ingest=True)
    assert quality.startswith("\nQuality score: 79/100\n") and "(KS0" not in quality
