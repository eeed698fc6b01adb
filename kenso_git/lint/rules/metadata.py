"""Frontmatter rules: tags and category (KS003 KS011 KS013 KS014)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.rules._where import key_line
from kenso_git.text.parse import Document

# Spec appendix A6, tried in order; at most one suffix is stripped.
STEM_SUFFIXES = ("tion", "ment", "ing", "est", "ed", "ly", "er", "es", "s")


def rough_stem(word: str) -> str:
    """Lowercase and strip the first matching suffix when 3+ characters remain."""
    word = word.lower()
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@rule(
    "KS003",
    "missing-tags",
    severity=Severity.WARNING,
    summary="The frontmatter lists tags.",
    why="Tags are indexed with every chunk and catch queries that use words the prose does not.",
    action="put tags in the frontmatter",
    deduction=12,
    emit=3,
    impact=12,
)
def missing_tags(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    if not doc.tags:
        yield Finding(key_line(doc, "tags"), 1, "no tags in the frontmatter")


@rule(
    "KS011",
    "few-tags",
    severity=Severity.INFO,
    summary="A document has at least three tags.",
    why="One or two tags cover few of the words people search with.",
    action="add more tags (3 or more)",
    deduction=2,
    emit=14,
)
def few_tags(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    want = ctx.thresholds.recommended_tags
    if 0 < len(doc.tags) < want:
        count = len(doc.tags)
        noun = "tag" if count == 1 else "tags"
        yield Finding(key_line(doc, "tags"), 1, f"only {count} {noun}; {want} or more recommended")


@rule(
    "KS013",
    "redundant-tag",
    severity=Severity.INFO,
    summary="Tags add words the title does not already hold.",
    why="A tag that repeats a title word adds no new way to find the document.",
    action="tag with words not in the title",
    deduction=0.5,
    emit=15,
)
def redundant_tag(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    if not doc.tags:
        return
    title_stems = {rough_stem(w) for w in doc.display_title.split() if len(w) >= 3}
    line = key_line(doc, "tags")
    for tag in doc.tags:
        if rough_stem(tag) in title_stems:
            yield Finding(line, 1, f'tag "{tag}" repeats a word of the title', subject=tag)


@rule(
    "KS014",
    "inconsistent-category",
    severity=Severity.WARNING,
    summary="A category used by one document is not a near-duplicate of another.",
    why="'deploy' next to 'deployment' splits one category in two, so category filters miss "
    "documents.",
    action="reuse an existing category name",
    deduction=1,
    emit=10,
    impact=1,
)
def inconsistent_category(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    category = doc.category
    if ctx.corpus.categories.get(category, 0) != 1:
        return
    similar = ctx.corpus.close_category(category, ctx.thresholds.category_similarity)
    if similar is not None:
        yield Finding(
            key_line(doc, "category"),
            1,
            f'category "{category}" is used once; did you mean "{similar}"?',
            subject=category,
        )


RULES = (missing_tags, few_tags, redundant_tag, inconsistent_category)
