"""Run the selected rules over documents: suppressions, severities, scores, the report."""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from operator import attrgetter
from typing import cast

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.deferred import CORPUS_RULES
from kenso_git.lint.deferred import Deferred
from kenso_git.lint.deferred import Partial
from kenso_git.lint.deferred import needs_text
from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import Rule
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Violation
from kenso_git.lint.rules import EMISSION_GROUPS
from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.lint.suppress import Suppressions
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


_PLACE = attrgetter("line", "column")  # a finding's place: the order within a group


def _ordered_rules(config: LintConfig) -> tuple[tuple[Rule, ...], ...]:
    """The selected rules in emission groups, worked out once per selection (it was twice a
    document: 66 ms of an ingest's lint summary on the docs corpus, #32)."""
    return _groups(config.select)


@lru_cache(maxsize=8)
def _groups(select: frozenset[str]) -> tuple[tuple[Rule, ...], ...]:
    groups = (tuple(r for r in slot if r.id in select) for slot in EMISSION_GROUPS)
    return tuple(rules for rules in groups if rules)


def _check(
    doc: Document,
    ctx: RuleContext,
    config: LintConfig,
    suppressed: Suppressions,
    corpus_rules: bool | None = None,
) -> dict[str, list[Violation]]:
    """Each selected rule's violations in `doc`: every rule, or only those that read the
    corpus facts (`corpus_rules=True`), or only the others (False)."""
    path_off = config.ignored_for(doc.path) if config.per_file_ignores else frozenset()
    if "KS024" in path_off:
        ctx = replace(ctx, moves_named=False)
    out: dict[str, list[Violation]] = {}
    quiet: bool | None = None  # asked of the link facts once, by the first targets_only rule
    for group in _ordered_rules(config):
        for rule in group:
            if rule.id in path_off:
                continue
            if corpus_rules is not None and (rule.id in CORPUS_RULES) != corpus_rules:
                continue
            if rule.targets_only:
                if quiet is None:
                    links = ctx.corpus.links
                    quiet = links is not None and links.quiet(doc)
                if quiet:
                    out[rule.id] = []
                    continue
            severity = config.severity.get(rule.id, rule.severity)
            out[rule.id] = [
                Violation(
                    doc.path,
                    rule.id,
                    rule.name,
                    severity,
                    f.line,
                    f.column,
                    f.message,
                    f.subject,
                    f.fix,
                )
                for f in rule.check(doc, ctx)
                if not suppressed.covers(rule.id, f.line)
            ]
    return out


def _assemble(path: str, found: dict[str, list[Violation]], config: LintConfig) -> FileResult:
    """The file's result: its violations in emission order (by line within a group)."""
    out: list[Violation] = []
    for group in _ordered_rules(config):
        if len(group) == 1:
            out.extend(found.get(group[0].id, ()))
            continue
        mine = [v for rule in group for v in found.get(rule.id, ())]
        if len(mine) > 1:
            mine.sort(key=_PLACE)
        out.extend(mine)
    return FileResult(path, score_file(out), tuple(out))


def lint_document(doc: Document, ctx: RuleContext, config: LintConfig) -> FileResult:
    """Lint one document against already computed corpus facts."""
    return _assemble(doc.path, _check(doc, ctx, config, parse_suppressions(doc.text)), config)


class _NoFacts:
    """The corpus facts while they are not known yet: a rule that reads them fails."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"a rule outside CORPUS_RULES read corpus.{name}")


def lint_alone(doc: Document, slimmed: Document, config: LintConfig) -> Partial:
    """The first half of a document's lint: the rules that judge it alone, from its full
    parse `doc`, kept with its slim form for the corpus rules (`lint_rest`)."""
    suppressed = parse_suppressions(doc.text)
    ctx = RuleContext(cast("CorpusFacts", _NoFacts()), config.thresholds)
    # only the rules that found something: thousands of these wait for the second half
    found = {rule: out for rule, out in _check(doc, ctx, config, suppressed, False).items() if out}
    return Partial(slimmed, found, suppressed)


def lint_rest(
    part: Partial, ctx: RuleContext, config: LintConfig, reread: Callable[[], Document]
) -> FileResult:
    """The second half: the corpus rules, on the slim form unless one needs the text."""
    doc = part.doc
    if needs_text(doc, ctx.corpus, config.select, config.thresholds):
        doc = reread()
    found = {**part.found, **_check(doc, ctx, config, part.suppressed, True)}
    return _assemble(doc.path, found, config)


BINARY_MESSAGE = (
    "not text: NUL bytes and no byte-order mark (UTF-16/32 saved without one, or a binary "
    "file), so ingest skips it and none of it can be found: re-save it as UTF-8"
)


def binary_result(path: str, config: LintConfig) -> FileResult | None:
    """The result of a file ingest skips as binary (`text.parse.looks_binary`): one KS021
    error, as for any text that does not decode; None when KS021 is not run for `path`."""
    rule = RULES_BY_ID["KS021"]
    if rule.id not in config.select or rule.id in config.ignored_for(path):
        return None
    severity = config.severity.get(rule.id, rule.severity)
    found = Violation(path, rule.id, rule.name, severity, 1, 1, BINARY_MESSAGE)
    return FileResult(path, score_file([found]), (found,))


def _git_last(
    docs: Iterable[Document | Deferred], corpus: CorpusFacts
) -> Iterator[Document | Deferred]:
    """`docs`, those whose lint reads git's awaited moves held back to the end, so git
    works while the others are linted (only those are held; the report is in path order)."""
    links = corpus.links
    if links is None or not links.awaiting:
        yield from docs
        return
    later: list[Document | Deferred] = []
    for doc in docs:
        path = doc.path if isinstance(doc, Document) else doc.part.doc.path
        if links.waits_for_git(path):
            later.append(doc)
        else:
            yield doc
    yield from later


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
    docs: Iterable[Document | Deferred],
    *,
    corpus: CorpusFacts | Sequence[Document] | None = None,
    config: LintConfig | None = None,
    extra: Sequence[FileResult] = (),
) -> LintReport:
    """Lint `docs`, judging corpus-wide rules against `corpus` (default: `docs` themselves).

    `corpus` may be precomputed facts or the repository's whole document list. `docs` is
    read once, one document at a time, so it may be a generator that parses each in turn;
    a `Deferred` one (given with `corpus`) had its first half linted already. `extra`
    results (files judged without a parse, `binary_result`) join the report in path order.
    """
    config = config or LintConfig()
    if corpus is None:  # they are the corpus too
        docs = corpus = [d for d in docs if isinstance(d, Document)]
    if not isinstance(corpus, CorpusFacts):
        corpus = build_facts(
            corpus,
            with_mentions="KS019" in config.select,
            min_label_chars=config.thresholds.min_label_chars,
        )
    ctx = RuleContext(corpus, config.thresholds)
    results = sorted(
        (
            lint_document(doc, ctx, config)
            if isinstance(doc, Document)
            else lint_rest(doc.part, ctx, config, doc.reread)
            for doc in _git_last(docs, corpus)
        ),
        key=lambda r: r.path,
    )
    if extra:
        results = sorted([*results, *extra], key=lambda r: r.path)
    return make_report(results, fail_under=config.fail_under)
