"""Markdown text -> `Document`: frontmatter, headings outside fenced code, line map. Pure.

One parse per file feeds both ingest (chunking) and lint; nothing here touches the disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_RELATION = "related"


@dataclass(frozen=True, slots=True)
class Heading:
    """An ATX heading (`#`..`######` at column 0, a space, text) outside fenced code."""

    level: int  # 1..6
    text: str  # the text after the hashes, trimmed
    line: int  # 1-based line number in the whole file (frontmatter included)
    offset: int  # character offset of the heading line's start within `Document.body`
    end: int  # character offset just past the line's text (before its newline) in `body`


@dataclass(frozen=True, slots=True)
class Relation:
    """One raw `relates_to` entry as written (globs and empty paths kept: lint reports them)."""

    target: str  # trimmed text as written
    relation: str  # relation type, DEFAULT_RELATION when none given
    line: int  # 1-based file line of the entry (the `relates_to` line when unknown)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with the file that did not stop it from being indexed."""

    message: str
    line: int  # 1-based file line


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed Markdown file. Everything lint and the chunker need, computed once."""

    path: str  # repo-relative POSIX path
    text: str  # the whole decoded file
    body: str  # the text after the frontmatter block
    body_line: int  # 1-based file line on which `body` starts
    frontmatter: Mapping[str, object]  # {} when absent or malformed
    has_frontmatter: bool
    headings: tuple[Heading, ...]  # outside fenced code, in document order
    fences: tuple[tuple[int, int], ...]  # [start, end) offsets in `body` of fenced code blocks
    h1: str | None  # text of the first H1 outside fenced code
    fm_title: str | None  # frontmatter `title` when it is a non-blank string, trimmed
    category: str  # frontmatter category, else the parent folder's name, else "general"
    audience: str  # frontmatter audience, default "all"
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    answers: tuple[str, ...]
    predicted_queries: tuple[str, ...]
    description: str | None
    relations: tuple[Relation, ...]
    problems: tuple[Problem, ...]

    @property
    def stem(self) -> str:
        """The file name without its last suffix (`my-doc.md` -> `my-doc`)."""
        name = self.path.rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[0] if "." in name else name

    @property
    def title(self) -> str | None:
        """The resolved title: the first H1, else the frontmatter title, else None."""
        return self.h1 if self.h1 is not None else self.fm_title

    @property
    def display_title(self) -> str:
        """The resolved title, else the file stem; also the chunk-title prefix."""
        resolved = self.title
        return resolved if resolved is not None else self.stem

    def line_of(self, offset: int) -> int:
        """1-based file line of a character offset in `body`."""
        return self.body_line + self.body.count("\n", 0, offset)

    def headings_at(self, level: int) -> tuple[Heading, ...]:
        return tuple(h for h in self.headings if h.level == level)


@dataclass(frozen=True, slots=True)
class Section:
    """An H2 section: from its heading line to the next H2 (or the end of the body)."""

    heading: Heading
    start: int  # offset of the heading line in `body`
    end: int  # offset where the next H2 line starts, or len(body)

    def full_text(self, doc: Document) -> str:
        """Heading line included, trimmed: what the chunker sees and measures."""
        return doc.body[self.start : self.end].strip()

    def content(self, doc: Document) -> str:
        """Heading line excluded, trimmed."""
        return doc.body[self.heading.end : self.end].strip()


def h2_sections(doc: Document) -> list[Section]:
    """The document's H2 sections in order (H3+ headings do not end a section)."""
    h2s = doc.headings_at(2)
    ends = [h.offset for h in h2s[1:]] + [len(doc.body)]
    return [Section(h, h.offset, end) for h, end in zip(h2s, ends, strict=True)]
