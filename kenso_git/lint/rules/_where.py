"""Where in a document a finding points: frontmatter keys, section lead lines."""

from __future__ import annotations

import re

from kenso_git.text.lines import line_starts
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


_WINDOW = 4096  # characters searched for a needle: many needles on one long line stay linear
_CURSOR: list[tuple[str, int, int]] = []  # (text, line, offset past the last needle found)


def column_in_line(doc: Document, line: int, needle: str) -> int:
    """1-based column of `needle` on `line` of the file, else 1.

    Needles asked in a row for one line (the entries of a flow list) are looked for after
    the previous one first, each within a bounded window.
    """
    starts = line_starts(doc.text)
    if not 1 <= line <= len(starts) or not needle:
        return 1
    start = starts[line - 1]
    stop = starts[line] - 1 if line < len(starts) else len(doc.text)
    found = -1
    if _CURSOR and _CURSOR[0][0] is doc.text and _CURSOR[0][1] == line:
        cursor = _CURSOR[0][2]
        found = doc.text.find(needle, cursor, min(stop, cursor + _WINDOW + len(needle)))
    if found < 0:
        found = doc.text.find(needle, start, min(stop, start + _WINDOW + len(needle)))
    if found < 0:
        return 1
    _CURSOR[:] = [(doc.text, line, found + len(needle))]
    return found - start + 1


def lead_line(doc: Document, section: Section) -> tuple[str, int] | None:
    """The section's first content line (trimmed) and its offset in `body` (`doc.line_of`
    gives its file line: asked only for a finding, the body's line starts are not counted
    for every document linted); headings are skipped."""
    offset = section.heading.end
    body = doc.body
    while offset < section.end:
        nl = body.find("\n", offset, section.end)
        stop = section.end if nl == -1 else nl
        text = body[offset:stop].strip()
        if text and not text.startswith("#"):
            return text, offset
        offset = stop + 1
    return None


_LEADS: list[tuple[Document, list[tuple[Section, tuple[str, int]]]]] = []  # the last asked


def section_leads(doc: Document) -> list[tuple[Section, tuple[str, int]]]:
    """Each H2 section that has a lead line, with it (`lead_line`): kept for the last
    document asked, which both prose rules read in a row."""
    if _LEADS and _LEADS[0][0] is doc:
        return _LEADS[0][1]
    leads = [(section, lead) for section in sections(doc) if (lead := lead_line(doc, section))]
    _LEADS[:] = [(doc, leads)]
    return leads


def sections(doc: Document) -> list[Section]:
    """The H2 sections (parse.h2_sections, guarded for documents without any H2)."""
    return h2_sections(doc) if doc.headings_at(2) else []
