"""The lint vocabulary: severities, rules (declared once with `@rule`), findings and violations."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kenso_git.lint.corpus import CorpusFacts
    from kenso_git.text.parse import Document


class Severity(StrEnum):
    """How much a finding matters: errors fail the run, warnings and info are reported only."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Sort key: errors first."""
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The numbers the rules compare against (configurable under `thresholds`)."""

    min_file_chars: int = 50  # KS001
    min_preamble_chars: int = 50  # KS006
    max_unsectioned_chars: int = 500  # KS008
    max_section_chars: int = 4000  # KS009: the chunk size
    recommended_tags: int = 3  # KS011
    max_links: int = 10  # KS018
    category_similarity: float = 0.6  # KS014
    min_label_chars: int = 4  # KS019


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What a check may look at besides the document: corpus facts and thresholds."""

    corpus: CorpusFacts
    thresholds: Thresholds
    # KS024 reports this document's links to pages git moved: the rules that leave those to
    # it (KS002, KS022, KS025) report them as dead where the file ignores KS024
    moves_named: bool = True


@dataclass(frozen=True, slots=True)
class Edit:
    """A fix: replace `old`, found at 1-based `line` and `column` of the file, with `new`.

    `lint --fix` and the language server's code actions apply it only where `old` still
    stands, so an edit made since the lint is never overwritten.
    """

    line: int
    column: int
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Finding:
    """What a check yields: a place in the file and a message.

    `subject` is the offending text (a heading, a tag, a link target); baselines key on it so
    that a finding survives line shifts. A finding of a `fixable` rule may carry its `fix`.
    """

    line: int
    column: int
    message: str
    subject: str = ""
    fix: Edit | None = None


Check = Callable[["Document", RuleContext], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    """One lint rule with everything the runner, the scorer and the docs need."""

    id: str
    name: str
    severity: Severity
    summary: str  # one sentence: what good looks like
    why: str  # rationale, for docs/rules.md
    action: str  # short imperative label for summaries ("put tags in the frontmatter")
    deduction: float  # points taken off the file score per finding
    cap: float | None  # maximum total deduction for this rule in one file
    impact: int | None  # the percentage shown in summaries (ranking only)
    enabled: bool  # on by default
    fixable: bool
    emit: int  # slot in a file's finding order (kenso's); see rules.EMISSION_GROUPS
    check: Check
    # reads only the document's notable link targets and unanswered relates_to entries
    # (`LinkFacts`): the runner skips it for a document that has none (#30)
    targets_only: bool = False


def rule(
    rule_id: str,
    name: str,
    *,
    severity: Severity,
    summary: str,
    why: str,
    action: str,
    deduction: float,
    emit: int,
    cap: float | None = None,
    impact: int | None = None,
    enabled: bool = True,
    fixable: bool = False,
    targets_only: bool = False,
) -> Callable[[Check], Rule]:
    """Declare a rule: wrap its check function into a `Rule`."""

    def wrap(check: Check) -> Rule:
        return Rule(
            rule_id,
            name,
            severity,
            summary,
            why,
            action,
            deduction,
            cap,
            impact,
            enabled,
            fixable,
            emit,
            check,
            targets_only,
        )

    return wrap


@dataclass(frozen=True, slots=True)
class Violation:
    """A finding placed in a file, with its rule's identity and effective severity."""

    path: str
    rule: str
    name: str
    severity: Severity
    line: int
    column: int
    message: str
    subject: str = ""
    fix: Edit | None = None

    def format_line(self) -> str:
        """`docs/setup.md:14:1: KS007 message (generic-heading)`."""
        return f"{self.path}:{self.line}:{self.column}: {self.rule} {self.message} ({self.name})"


@dataclass(frozen=True, slots=True)
class FileResult:
    """The violations of one linted file (emission order) and its score."""

    path: str
    score: int
    violations: tuple[Violation, ...]


@dataclass(frozen=True, slots=True)
class LintReport:
    """The outcome of a lint run."""

    files: tuple[FileResult, ...]  # every linted file, in path order
    score: int
    errors: int
    warnings: int
    info: int
    baselined: int = 0  # findings hidden because the baseline already holds them
    fail_under: int | None = None
    skipped: tuple[tuple[str, int], ...] = ()  # links not checked offline, by reason (#30)

    @property
    def failed(self) -> bool:
        """True when the run should exit 1: an error-severity finding, or a score too low."""
        if self.errors > 0:
            return True
        return self.fail_under is not None and self.score < self.fail_under

    def violations(self) -> list[Violation]:
        """Every violation of every file, in file order then emission order."""
        return [v for f in self.files for v in f.violations]
