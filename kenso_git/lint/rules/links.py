"""Link rules: relates_to targets, orphans and unlinked mentions (KS002 KS012 KS017 KS018 KS019)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.relpaths import relation_paths
from kenso_git.lint.rules._where import column_in_line
from kenso_git.lint.rules._where import key_line
from kenso_git.text.links import is_glob
from kenso_git.text.links import resolve_links
from kenso_git.text.parse import Document


@rule(
    "KS017",
    "glob-in-link",
    severity=Severity.ERROR,
    summary="relates_to entries name files, not patterns.",
    why="Ingest drops entries with * or ?, so the relation silently disappears.",
    action="list each related file by path",
    deduction=3,
    emit=1,
    impact=1,
)
def glob_in_link(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for rel in doc.relations:
        if is_glob(rel.target):
            column = column_in_line(doc, rel.line, rel.target)
            yield Finding(
                rel.line, column, f'relates_to entry "{rel.target}" is a pattern', rel.target
            )


@rule(
    "KS002",
    "broken-link",
    severity=Severity.ERROR,
    summary="relates_to entries point at existing documents.",
    why="A related-document link to a missing file breaks get_related and the relation boost.",
    action="fix or remove broken relates_to entries",
    deduction=3,
    emit=1,
    impact=1,
)
def broken_link(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    relations = [rel for rel in doc.relations if not is_glob(rel.target)]
    targets = [rel.target for rel in relations]
    found = resolve_links(doc.path, targets, ctx.corpus.paths)
    links = ctx.corpus.links
    for rel, resolved in zip(relations, found, strict=True):
        if resolved is None:
            if (
                links is not None
                and ctx.moves_named
                and (
                    links.relation_move(relation_paths(doc.path, rel.target))
                    or links.moved_relation(doc, rel)
                )
            ):
                continue  # KS024 names where it went, with a fix
            column = column_in_line(doc, rel.line, rel.target)
            yield Finding(
                rel.line, column, f'relates_to target "{rel.target}" does not exist', rel.target
            )


@rule(
    "KS012",
    "orphan-doc",
    severity=Severity.WARNING,
    summary="A document links to others or is linked from one.",
    why="Relations let search pull in related documents; an orphan never rides along.",
    action="connect the document with relates_to",
    deduction=4,
    emit=9,
    impact=3,
)
def orphan_doc(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    if doc.path not in ctx.corpus.sources and doc.path not in ctx.corpus.linked:
        yield Finding(1, 1, "no relates_to links from or to this document")


@rule(
    "KS018",
    "too-many-links",
    severity=Severity.WARNING,
    summary="A document has at most 10 relates_to entries.",
    why="Long relation lists dilute the relation boost and usually mean the document covers "
    "too much.",
    action="keep relates_to to the closest 10",
    deduction=1,
    emit=11,
    impact=1,
)
def too_many_links(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    limit = ctx.thresholds.max_links
    count = len(doc.relations)
    if count > limit:
        yield Finding(key_line(doc, "relates_to"), 1, f"{count} relates_to entries; limit {limit}")


@rule(
    "KS019",
    "unlinked-mention",
    severity=Severity.WARNING,
    summary="A document that names another document's title links to it.",
    why="A mention without a relates_to link is a relation search cannot use. Off by default: "
    "titles that are common phrases make it noisy.",
    action="link documents you mention",
    deduction=1,
    emit=12,
    cap=4,
    impact=3,
    enabled=False,
)
def unlinked_mention(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    index = ctx.corpus.mentions
    if index is None:
        return
    linked = resolve_links(doc.path, [r.target for r in doc.relations], ctx.corpus.paths)
    for mention in index.find(doc, exclude=[p for p in linked if p is not None]):
        line = doc.line_of(mention.offset)
        start = doc.body.rfind("\n", 0, mention.offset) + 1
        yield Finding(
            line,
            mention.offset - start + 1,
            f'mentions "{mention.label}" → {mention.owner} without a relates_to link',
            subject=mention.owner,
        )


RULES = (glob_in_link, broken_link, orphan_doc, too_many_links, unlinked_mention)
