"""Documents linted in two halves: the rules that judge the file alone while its full parse
is at hand, the corpus-wide rules later against the corpus facts (issue #14).

A large repository's lint keeps only a slim form of most documents (corpus.KEEP_CHARS).
Re-reading and re-parsing each of them for the second pass cost 1.8 parses per document on
ten copies of the docs corpus against one on one copy; now a slimmed document is read again
only when a corpus rule will report something about it and needs its text for the line.
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern

from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.model import Edit
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Thresholds
from kenso_git.lint.model import Violation
from kenso_git.lint.suppress import Suppressions
from kenso_git.records import NamedTuple
from kenso_git.text.links import is_glob
from kenso_git.text.links import resolve_link
from kenso_git.text.parse import Document

# The rules that read ctx.corpus (tests/lint/test_deferred.py checks that no other does).
CORPUS_RULES = frozenset(
    {"KS002", "KS012", "KS014", "KS019", "KS022", "KS023", "KS024", "KS025", "KS026"}
)


class Partial(NamedTuple):
    """A slimmed document and what the rules that judge it alone found in its full parse."""

    doc: Document  # slimmed: no text, body, headings or frontmatter
    found: dict[str, list[Violation]]  # rule id -> its violations, every rule run so far
    suppressed: Suppressions


_EMPTY: dict[str, object] = {}  # a slimmed document's frontmatter, shared (never written)


# A violation as a parse worker sends it for an ingest's summary (its document's path apart):
# rule, name, severity, line, column, message, subject, fix. Plain tuples unpickle in C; a
# Violation unpickled through the dataclass's own setstate and was copied again here to
# share its strings, ~40% of the summary's time (#32).
Sent = tuple[str, str, str, int, int, str, str, "Edit | None"]
_SEVERITIES = {severity.value: severity for severity in Severity}


def sent_violation(v: Violation) -> Sent:
    """One violation as a plain tuple (its path apart); `violation` makes it again."""
    return (v.rule, v.name, v.severity.value, v.line, v.column, v.message, v.subject, v.fix)


def violation(path: str, v: Sent) -> Violation:
    """The violation `sent_violation` sent, placed in `path`."""
    return Violation(path, v[0], v[1], _SEVERITIES[v[2]], v[3], v[4], v[5], v[6], v[7])


def sent(found: dict[str, list[Violation]]) -> dict[str, list[Sent]]:
    """`found` as the plain tuples `received` takes."""
    return {rule: [sent_violation(v) for v in found_] for rule, found_ in found.items()}


def received(doc: Document, found: dict[str, list[Sent]], sup: Suppressions) -> Partial:
    """A Partial as it arrives from a parse worker (`sent`): the violations built once, and
    the strings that repeat from one document to the next (a finding's rule, name, message
    and subject, the category and audience) kept once in the process (#32)."""
    doc = doc._replace(
        category=intern(doc.category),
        audience=intern(doc.audience),
        frontmatter=doc.frontmatter or _EMPTY,
        fm_title=doc.h1 if doc.fm_title == doc.h1 else doc.fm_title,
    )
    path, severities = doc.path, _SEVERITIES
    violations = {
        intern(rule): [
            Violation(
                path,
                intern(v[0]),
                intern(v[1]),
                severities[v[2]],
                v[3],
                v[4],
                intern(v[5]),
                intern(v[6]),
                v[7],
            )
            for v in found_
        ]
        for rule, found_ in found.items()
    }
    return Partial(doc, violations, sup)


class Deferred(NamedTuple):
    """A slimmed document's second half to lint, and how to read it again if need be."""

    part: Partial
    reread: Callable[[], Document]


def needs_text(
    doc: Document, facts: CorpusFacts, select: frozenset[str], thresholds: Thresholds
) -> bool:
    """Whether a corpus rule will look at more of `doc` than its slim form keeps: KS019
    scans the body, KS002, KS014 and KS024 (for a relates_to entry) place a finding on a
    line. KS012's finding is at 1:1; the other path rules read the scan kept with the slim
    form (`Selection.scans`)."""
    if "KS019" in select and facts.mentions is not None:
        return True
    if "KS024" in select and facts.links is not None and facts.links.moves:
        links = facts.links
        if any(links.relation_move(paths) for _rel, paths in links.missing_relations(doc)):
            return True
    if "KS002" in select and any(
        not is_glob(r.target) and resolve_link(doc.path, r.target, facts.paths) is None
        for r in doc.relations
    ):
        return True
    return (
        "KS014" in select
        and facts.categories.get(doc.category, 0) == 1
        and facts.close_category(doc.category, thresholds.category_similarity) is not None
    )
