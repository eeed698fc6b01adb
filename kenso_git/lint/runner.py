"""Run the selected rules over documents: suppressions, severities, scores, the report."""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Sequence

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Rule
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Violation
from kenso_git.lint.rules import EMISSION_GROUPS
from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.lint.suppress import parse_suppressions
from kenso_git.text.parse import Document


def round_half_up(value: float) -> int:
    """Round x.5 up (kenso rounded half to even: 98.5 -> 98)."""
    return math.floor(value + 0.5)


def score_file(violations: Iterable[Violation]) -> int:
    """100 minus each rule's deductions (capped per rule), rounded half up, at least 0."""
    taken: dict[str, float] = {}
    for v in violations:
        rule = RULES_BY_ID[v.rule]
        total = taken.get(v.rule, 0.0) + rule.deduction
        taken[v.rule] = min(total, rule.cap) if rule.cap is not None else total
    return max(0, round_half_up(100.0 - sum(taken.values())))


def _ordered_rules(config: LintConfig) -> list[tuple[Rule, ...]]:
    groups = []
    for slot in EMISSION_GROUPS:
        rules = tuple(r for r in slot if r.id in config.select)
        if rules:
            groups.append(rules)
    return groups


def lint_document(doc: Document, ctx: RuleContext, config: LintConfig) -> FileResult:
    """Lint one document against already computed corpus facts."""
    suppressed = parse_suppressions(doc.text)
    path_off = config.ignored_for(doc.path) if config.per_file_ignores else frozenset()
    out: list[Violation] = []
    for group in _ordered_rules(config):
        found: list[Violation] = []
        for rule in group:
            if rule.id in path_off:
                continue
            severity = config.severity.get(rule.id, rule.severity)
            for f in rule.check(doc, ctx):
                if suppressed.covers(rule.id, f.line):
                    continue
                where = (f.line, f.column)
                found.append(
                    Violation(doc.path, rule.id, rule.name, severity, *where, f.message, f.subject)
                )
        if len(group) > 1:
            found.sort(key=lambda v: (v.line, v.column))
        out.extend(found)
    return FileResult(doc.path, score_file(out), tuple(out))


def make_report(
    results: Sequence[FileResult], *, fail_under: int | None = None, baselined: int = 0
) -> LintReport:
    """Totals and the overall score (mean of file scores, rounded half up; 100 when empty)."""
    counts = dict.fromkeys(Severity, 0)
    for result in results:
        for v in result.violations:
            counts[v.severity] += 1
    score = round_half_up(sum(r.score for r in results) / len(results)) if results else 100
    return LintReport(
        tuple(results),
        score,
        counts[Severity.ERROR],
        counts[Severity.WARNING],
        counts[Severity.INFO],
        baselined,
        fail_under,
    )


def lint_documents(
    docs: Iterable[Document],
    *,
    corpus: CorpusFacts | Sequence[Document] | None = None,
    config: LintConfig | None = None,
) -> LintReport:
    """Lint `docs`, judging corpus-wide rules against `corpus` (default: `docs` themselves).

    `corpus` may be precomputed facts or the repository's whole document list. `docs` is
    read once, one document at a time, so it may be a generator that parses each in turn.
    """
    config = config or LintConfig()
    if corpus is None:
        docs = list(docs)  # they are the corpus too
    if not isinstance(corpus, CorpusFacts):
        corpus = build_facts(
            list(docs) if corpus is None else corpus,
            with_mentions="KS019" in config.select,
            min_label_chars=config.thresholds.min_label_chars,
        )
    ctx = RuleContext(corpus, config.thresholds)
    results = sorted((lint_document(doc, ctx, config) for doc in docs), key=lambda r: r.path)
    return make_report(results, fail_under=config.fail_under)
