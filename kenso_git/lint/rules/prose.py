"""Prose rules: how each section's first line reads out of context (KS015 KS016)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.rules._where import section_leads
from kenso_git.text.parse import Document

# Spec appendix A3 and A4 (data lists), in the order they are tried.
WEAK_LEADS = (
    "this section",
    "in this section",
    "the following",
    "below is",
    "here we",
    "this document",
    "this page",
    "as mentioned",
)
PRONOUNS = ("It ", "This ", "These ", "Those ", "They ")


@rule(
    "KS015",
    "weak-lead",
    severity=Severity.INFO,
    summary="A section's first line states a fact, not that a section follows.",
    why="Search previews show a chunk's first line; 'This section describes...' spends it on "
    "nothing.",
    action="lead sections with the point",
    deduction=0.5,
    emit=16,
)
def weak_lead(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    yield from _leads_starting_with(doc, WEAK_LEADS, casefold=True, noun="")


def _leads_starting_with(
    doc: Document, prefixes: tuple[str, ...], *, casefold: bool, noun: str
) -> Iterator[Finding]:
    """One finding per section whose first content line starts with one of `prefixes`."""
    for section, lead in section_leads(doc):
        text = lead[0].lower() if casefold else lead[0]
        if text.startswith(prefixes):  # one call for all: most leads match none
            prefix = next(p for p in prefixes if text.startswith(p))
            shown = prefix.strip()
            yield Finding(
                doc.line_of(lead[1]),
                1,
                f'section "{section.heading.text}" opens with {noun}"{shown}"',
                subject=f"{section.heading.text}: {shown}",
            )


@rule(
    "KS016",
    "dangling-pronoun",
    severity=Severity.INFO,
    summary="A section's first line does not start with a pronoun.",
    why="A chunk is read on its own; 'It' or 'This' at its start points at text the reader "
    "does not have.",
    action="name the subject instead of a pronoun",
    deduction=0.5,
    emit=17,
)
def dangling_pronoun(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    yield from _leads_starting_with(doc, PRONOUNS, casefold=False, noun="the pronoun ")


RULES = (weak_lead, dangling_pronoun)
