"""Reading rules: the file decodes as UTF-8 and its frontmatter loads (KS020 KS021).

Ingest never stops at such a file: it replaces bytes it cannot decode with U+FFFD and reads
broken YAML line by line. What reaches the index and agents is then not what the author
wrote (the tag `{a: b` of a flow mapping left open), so lint fails the commit (#26).
"""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.text.parse import ENCODING
from kenso_git.text.parse import FRONTMATTER
from kenso_git.text.parse import Document


@rule(
    "KS020",
    "invalid-frontmatter",
    severity=Severity.ERROR,
    summary="The frontmatter loads: YAML `key: value` fields between two `---` lines, each "
    "key once, or Hugo's TOML between two `+++` lines.",
    why="Frontmatter that does not load is read line by line instead, so half-parsed values "
    "(a tag `{a: b` from an unclosed flow mapping) reach the index and every agent; a key "
    "given twice keeps only its last value, the first lost without a word.",
    action="fix the frontmatter YAML (or TOML)",
    deduction=10,
    emit=-1,
    impact=10,
)
def invalid_frontmatter(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for problem in doc.problems:
        if problem.kind == FRONTMATTER:
            yield Finding(problem.line, 1, problem.message)


@rule(
    "KS021",
    "invalid-encoding",
    severity=Severity.ERROR,
    summary="The file is valid UTF-8 (or UTF-16/32 with a byte-order mark).",
    why="Bytes that do not decode are replaced with U+FFFD in the index, so the words they "
    "belong to cannot be found and agents read garbled text; a file with NUL bytes and no "
    "byte-order mark (UTF-16 saved without one) is skipped as binary, none of it indexed.",
    action="re-save the file as UTF-8",
    deduction=10,
    emit=-1,
    impact=10,
)
def invalid_encoding(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for problem in doc.problems:
        if problem.kind == ENCODING:
            yield Finding(problem.line, problem.column, problem.message)


RULES = (invalid_frontmatter, invalid_encoding)
