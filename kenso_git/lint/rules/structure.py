"""Structure rules: length, preamble, H2 sections (KS001 KS006 KS008 KS009 KS010)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.rules._where import sections
from kenso_git.text.anchors import setext_levels
from kenso_git.text.chunk import is_dropped_section
from kenso_git.text.parse import Document


@rule(
    "KS001",
    "file-too-short",
    severity=Severity.ERROR,
    summary="A document holds at least 50 characters.",
    why="Ingest skips files shorter than 50 characters, so nothing in them can be found.",
    action="write at least a few sentences",
    deduction=3,
    emit=0,
    impact=1,
)
def file_too_short(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    floor = ctx.thresholds.min_file_chars
    if len(doc.text.strip()) < floor:
        yield Finding(1, 1, f"file has fewer than {floor} characters and is not indexed")


@rule(
    "KS010",
    "tiny-section",
    severity=Severity.ERROR,
    summary="Every H2 section is long enough to become a chunk.",
    why="The chunker drops H2 sections under 20 characters (heading line included); their "
    "text never reaches the index.",
    action="fill or remove near-empty sections",
    deduction=3,
    emit=2,
    impact=1,
)
def tiny_section(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for section in sections(doc):
        if is_dropped_section(section.full_text(doc)):
            heading = section.heading
            yield Finding(
                heading.line,
                1,
                f'section "{heading.text}" is under 20 characters and is dropped from the index',
                subject=heading.text,
            )


@rule(
    "KS006",
    "no-preamble",
    severity=Severity.WARNING,
    summary="Text before the first H2 introduces the document.",
    why="A preamble of 50+ characters becomes an overview chunk that answers 'what is this "
    "document about' queries.",
    action="add an intro before the first H2",
    deduction=4,
    emit=6,
    impact=4,
)
def no_preamble(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    h2s = doc.headings_at(2)
    if not h2s:
        return
    first = h2s[0]
    parts: list[str] = []
    cursor = 0
    for heading in doc.headings_at(1):
        if heading.offset >= first.offset:
            break
        parts.append(doc.body[cursor : heading.offset])
        cursor = heading.end
    parts.append(doc.body[cursor : first.offset])
    floor = ctx.thresholds.min_preamble_chars
    if len("".join(parts).strip()) < floor:
        message = f"less than {floor} characters of intro before the first H2"
        yield Finding(doc.body_line, 1, message)


@rule(
    "KS008",
    "no-h2",
    severity=Severity.WARNING,
    summary="Documents longer than 500 characters are split into H2 sections.",
    why="Without H2 headings the whole document is one chunk (or blind paragraph splits), so "
    "search cannot point at the part that answers.",
    action="split long documents with ATX H2 headings (`## Section`, not setext `---`)",
    deduction=14,
    emit=8,
    impact=8,
)
def no_h2(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    limit = ctx.thresholds.max_unsectioned_chars
    if doc.headings_at(2) or len(doc.body.strip()) <= limit:
        return
    size = f"{len(doc.body.strip()):,}"
    if 2 in setext_levels(doc):  # an H2 on GitHub, but the index splits on ATX `##` only
        yield Finding(
            doc.body_line,
            1,
            f"no H2 the index splits on in {size} characters: its H2s are written"
            " setext-style (a line of `---` under them); write them as `## Section`",
        )
        return
    yield Finding(doc.body_line, 1, f"no H2 headings in {size} characters")


@rule(
    "KS009",
    "oversized-section",
    severity=Severity.INFO,
    summary="An H2 section fits in one chunk.",
    why="Sections over the chunk size are split at H3/H4 headings or paragraphs, and each part "
    "loses some of its context.",
    action="break up sections longer than a chunk",
    deduction=2,
    emit=13,
    cap=6,
)
def oversized_section(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    limit = ctx.thresholds.max_section_chars
    for section in sections(doc):
        size = len(section.full_text(doc))
        if size > limit:
            heading = section.heading
            yield Finding(
                heading.line,
                1,
                f'section "{heading.text}" is {size:,} characters, over the {limit:,} chunk size',
                subject=heading.text,
            )


RULES = (file_too_short, tiny_section, no_preamble, no_h2, oversized_section)
