"""Prose rules: how each section's first line reads out of context (KS015 KS016)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.rules._where import lead_line
from kenso_git.lint.rules._where import sections
from kenso_git.parse import Document

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
)
def weak_lead(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for section in sections(doc):
        lead = lead_line(doc, section)
        if lead is None:
            continue
        lowered = lead[0].lower()
        for prefix in WEAK_LEADS:
            if lowered.startswith(prefix):
                yield Finding(
                    lead[1],
                    1,
                    f'section "{section.heading.text}" opens with "{prefix}"',
                    subject=f"{section.heading.text}: {prefix}",
                )
                break


@rule(
    "KS016",
    "dangling-pronoun",
    severity=Severity.INFO,
    summary="A section's first line does not start with a pronoun.",
    why="A chunk is read on its own; 'It' or 'This' at its start points at text the reader "
    "does not have.",
    action="name the subject instead of a pronoun",
    deduction=0.5,
)
def dangling_pronoun(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for section in sections(doc):
        lead = lead_line(doc, section)
        if lead is None:
            continue
        for pronoun in PRONOUNS:
            if lead[0].startswith(pronoun):
                yield Finding(
                    lead[1],
                    1,
                    f'section "{section.heading.text}" opens with the pronoun "{pronoun.strip()}"',
                    subject=f"{section.heading.text}: {pronoun.strip()}",
                )
                break


RULES = (weak_lead, dangling_pronoun)
