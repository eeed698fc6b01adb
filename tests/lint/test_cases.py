"""Fixture documents under cases/: `<!-- expect: KS007 -->` marks the line a finding is on.

A file lints with the rules named in its file name (`ks015-ks016-fail.md`); `KS010@5` in a
marker names line 5 instead of the marker's own line (for heading lines, which a comment
would change). Every other case file is part of the corpus, so links resolve between them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.rules import ALL_RULES
from kenso_git.lint.runner import lint_documents
from kenso_git.repo.discover import document_from_bytes

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(p.relative_to(CASES).as_posix() for p in CASES.rglob("*.md"))
_MARKER = re.compile(r"<!--\s*expect:\s*([^>]*?)\s*-->")
_EXPECT = re.compile(r"(KS\d{3})(?:@(\d+))?")


def _rules_of(name: str) -> frozenset[str]:
    return frozenset(m.upper() for m in re.findall(r"ks\d{3}", name.rsplit("/", 1)[-1]))


def _expected(text: str) -> Counter[tuple[int, str]]:
    out: Counter[tuple[int, str]] = Counter()
    for number, line in enumerate(text.split("\n"), start=1):
        for marker in _MARKER.finditer(line):
            for rule_id, at in _EXPECT.findall(marker.group(1)):
                out[(int(at) if at else number, rule_id)] += 1
    return out


def _corpus():
    # decoded as lint reads files: a case may hold bytes that are not UTF-8 (KS021)
    docs = [document_from_bytes(p, (CASES / p).read_bytes()) for p in CASE_FILES]
    return docs, build_facts(docs, with_mentions=True)


@pytest.mark.parametrize("case", [c for c in CASE_FILES if _rules_of(c)])
def test_case_findings_match_markers(case: str) -> None:
    docs, facts = _corpus()
    doc = next(d for d in docs if d.path == case)
    report = lint_documents([doc], corpus=facts, config=LintConfig(select=_rules_of(case)))
    found = Counter((v.line, v.rule) for v in report.violations())
    assert found == _expected(doc.text), [v.format_line() for v in report.violations()]


@pytest.mark.parametrize("rule", [r.id for r in ALL_RULES])
def test_every_rule_has_failing_and_passing_cases(rule: str) -> None:
    mine = [c for c in CASE_FILES if rule in _rules_of(c)]
    texts = {c: (CASES / c).read_text(encoding="utf-8", errors="replace") for c in mine}
    failing = [c for c in mine if any(r == rule for _, r in _expected(texts[c]))]
    passing = [c for c in mine if not any(r == rule for _, r in _expected(texts[c]))]
    assert failing, f"no case file makes {rule} fire"
    assert passing, f"no case file shows {rule} staying quiet"
