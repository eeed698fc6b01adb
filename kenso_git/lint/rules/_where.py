"""Where in a document a finding points: frontmatter keys, section lead lines."""

from __future__ import annotations

import re

from kenso_git.text.parse import Document
from kenso_git.text.parse import Section
from kenso_git.text.parse import h2_sections


def key_line(doc: Document, key: str) -> int:
    """1-based line of a top-level frontmatter `key:`, else 1."""
    if not doc.has_frontmatter:
        return 1
    pattern = re.compile(rf"{re.escape(key)}\s*:")
    head = doc.text.split("\n", doc.body_line - 1)[: doc.body_line - 1]
    for number, text in enumerate(head, start=1):
        if pattern.match(text):
            return number
    return 1


def column_in_line(doc: Document, line: int, needle: str) -> int:
    """1-based column of `needle` on `line` of the file, else 1."""
    lines = doc.text.split("\n", line)
    if line - 1 >= len(lines) or not needle:
        return 1
    found = lines[line - 1].find(needle)
    return found + 1 if found >= 0 else 1


def lead_line(doc: Document, section: Section) -> tuple[str, int] | None:
    """The section's first content line (trimmed) and its file line; headings are skipped."""
    offset = section.heading.end
    body = doc.body
    while offset < section.end:
        nl = body.find("\n", offset, section.end)
        stop = section.end if nl == -1 else nl
        text = body[offset:stop].strip()
        if text and not text.startswith("#"):
            return text, doc.line_of(offset)
        offset = stop + 1
    return None


def sections(doc: Document) -> list[Section]:
    """The H2 sections (parse.h2_sections, guarded for documents without any H2)."""
    return h2_sections(doc) if doc.headings_at(2) else []
