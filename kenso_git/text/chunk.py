"""`Document` -> chunks as kenso makes them (spec §3), with its section bugs fixed (§8.1, §8.2).

Every boundary comes from `Document.headings` and `Document.fences`, so a `# comment` inside a
fenced code block never starts, ends or names a chunk. Work is done on offsets into
`Document.body`; text is only sliced out for the chunks themselves.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.text import terms
from kenso_git.text.parse import Document
from kenso_git.text.parse import Heading

OVERVIEW_SUFFIX = " — Overview"
CONTINUED_SUFFIX = " (cont.)"
PATH_SEPARATOR = " > "
MIN_SECTION_CHARS = 20  # a section (heading line included) shorter than this is dropped
MIN_OVERVIEW_CHARS = 50  # a preamble this long becomes its own overview chunk
_DEEPEST_SPLIT_LEVEL = 4  # H2 -> H3 -> H4 -> paragraphs; H5/H6 never split


class Chunk(NamedTuple):
    """One indexed piece of a document."""

    title: str
    section_path: str
    content: str


def is_dropped_section(text: str) -> bool:
    """True when a section's text (heading line included) is too short to become a chunk."""
    return len(text.strip()) < MIN_SECTION_CHARS


def _trimmed(body: str, start: int, end: int) -> tuple[int, int]:
    """`body[start:end]` bounds with surrounding whitespace removed."""
    while start < end and body[start].isspace():
        start += 1
    while end > start and body[end - 1].isspace():
        end -= 1
    return start, end


def _table_ranges(body: str, start: int, end: int) -> list[tuple[int, int]]:
    """Runs of lines whose trimmed text starts and ends with `|`, up to the next line's start."""
    ranges: list[tuple[int, int]] = []
    run_start = -1
    pos = start
    while pos < end:
        nl = body.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        line = body[pos:line_end].strip()
        if line.startswith("|") and line.endswith("|"):
            if run_start < 0:
                run_start = pos
        elif run_start >= 0:
            ranges.append((run_start, pos))
            run_start = -1
        pos = line_end + 1
    if run_start >= 0:
        ranges.append((run_start, end))
    return ranges


def _split_points(doc: Document, start: int, end: int) -> list[int]:
    """Offsets just after each `\\n\\n` of `body[start:end]` that lies outside code and tables.

    One forward walk over the (sorted, disjoint) protected ranges: linear in the section, not
    in blank lines times fences.
    """
    body = doc.body
    fences = doc.fences
    first = max(0, bisect.bisect_left(fences, (start, start)) - 1)
    protected = list(fences[first : bisect.bisect_left(fences, (end, end))])
    protected += _table_ranges(body, start, end)
    protected.sort()
    cuts: list[int] = []
    k, covered = 0, -1  # ranges before k are passed; `covered`: the furthest end among them
    i = body.find("\n\n", start, end)
    while i >= 0:
        while k < len(protected) and protected[k][0] <= i:
            covered = max(covered, protected[k][1])
            k += 1
        if i >= covered:
            cuts.append(i + 2)
        i = body.find("\n\n", i + 2, end)
    return cuts


def split_paragraphs(doc: Document, start: int, end: int, limit: int) -> list[str]:
    """Pack the paragraphs of the trimmed `body[start:end]` into parts of at most `limit` chars.

    A single paragraph (or a protected code block or table) longer than `limit` stays whole.
    """
    body = doc.body
    if end - start <= limit:
        return [body[start:end]]
    cuts = _split_points(doc, start, end)
    if not cuts:
        return [body[start:end]]
    parts: list[str] = []
    acc_start = start
    for seg_start, seg_end in zip([start, *cuts], [*cuts, end], strict=True):
        if seg_start > acc_start and seg_end - acc_start > limit:
            part = body[acc_start:seg_start].strip()
            if part:
                parts.append(part)
            acc_start = seg_start
    last = body[acc_start:end].strip()
    if last:
        parts.append(last)
    return parts or [body[start:end]]


class _Chunker:
    def __init__(self, doc: Document, max_size: int) -> None:
        self.doc = doc
        self.max_size = max_size
        self.title = doc.display_title
        self.chunks: list[Chunk] = []
        self.offsets = [h.offset for h in doc.headings]

    def _headings_in(self, start: int, end: int) -> tuple[Heading, ...]:
        """Headings strictly inside `(start, end)`, found by bisection (headings are sorted)."""
        low = bisect.bisect_right(self.offsets, start)
        return self.doc.headings[low : bisect.bisect_left(self.offsets, end, low)]

    def _name(self, path: tuple[str, ...]) -> str:
        return PATH_SEPARATOR.join((self.title, *path))

    def paragraph_chunks(self, start: int, end: int, path: tuple[str, ...]) -> None:
        """One chunk, or paragraph parts named `X`, `X (cont.)`, ... for an oversized text."""
        name = self._name(path)
        for index, part in enumerate(split_paragraphs(self.doc, start, end, self.max_size)):
            if part.strip():
                title = name if index == 0 else name + CONTINUED_SUFFIX
                self.chunks.append(Chunk(title, name, part))

    def section(self, heading: Heading, end: int, path: tuple[str, ...]) -> None:
        """A heading's section `[heading.offset, end)`: one chunk, or split (spec §3.3)."""
        start, end = _trimmed(self.doc.body, heading.offset, end)
        if end - start < MIN_SECTION_CHARS:
            return
        path = (*path, heading.text)
        if end - start <= self.max_size:
            self.chunks.append(Chunk(self._name(path), self._name(path), self.doc.body[start:end]))
            return
        level = heading.level + 1
        subs = [h for h in self._headings_in(start, end) if h.level == level]
        if heading.level >= _DEEPEST_SPLIT_LEVEL or not subs:
            self.paragraph_chunks(start, end, path)
            return
        # §8.1 fix: the heading line and intro before the first sub-heading are kept.
        # A heading line alone is not kept: the sub-chunks carry it in their titles.
        text_start, text_end = _trimmed(self.doc.body, heading.end, subs[0].offset)
        intro_start, intro_end = _trimmed(self.doc.body, start, subs[0].offset)
        if text_end > text_start and intro_end - intro_start >= MIN_SECTION_CHARS:
            self.paragraph_chunks(intro_start, intro_end, path)
        ends = [h.offset for h in subs[1:]] + [end]
        for sub, sub_end in zip(subs, ends, strict=True):
            self.section(sub, sub_end, path)


def _preamble(doc: Document, end: int) -> str:
    """Text before the first H2 with every (real) H1 line removed, trimmed."""
    pieces: list[str] = []
    pos = 0
    for heading in doc.headings:
        if heading.offset >= end:
            break
        if heading.level == 1:
            pieces.append(doc.body[pos : heading.offset])
            pos = heading.end
    pieces.append(doc.body[pos:end])
    return "".join(pieces).strip()


def _with_overlap(chunks: list[Chunk], overlap: int) -> list[Chunk]:
    """Prefix each chunk (overview chunks excepted) with the tail of the previous one (§3.5)."""
    result = chunks[:1]
    for chunk in chunks[1:]:
        previous = result[-1].content
        if chunk.title.endswith(OVERVIEW_SUFFIX):
            result.append(chunk)
            continue
        tail = previous
        if len(previous) > overlap:
            tail = previous[-overlap:]
            if " " in tail:
                tail = tail.split(" ", 1)[1]
        if tail.strip():
            chunk = Chunk(chunk.title, chunk.section_path, tail.rstrip() + "\n\n" + chunk.content)
        result.append(chunk)
    return result


def _sectioned(doc: Document, chunker: _Chunker, h2s: tuple[Heading, ...], overlap: int) -> None:
    """Case B of spec §3.2: overview or merged preamble, then H2 sections, then overlap."""
    preamble = _preamble(doc, h2s[0].offset)
    title = chunker.title
    if len(preamble) >= MIN_OVERVIEW_CHARS:
        chunker.chunks.append(Chunk(title + OVERVIEW_SUFFIX, title, preamble))
    ends = [h.offset for h in h2s[1:]] + [len(doc.body)]
    for heading, end in zip(h2s, ends, strict=True):
        chunker.section(heading, end, ())
    chunks = chunker.chunks
    if preamble and len(preamble) < MIN_OVERVIEW_CHARS and chunks:
        first = chunks[0]
        chunks[0] = Chunk(first.title, first.section_path, preamble + "\n\n" + first.content)
    if overlap > 0 and len(chunks) >= 2:  # kenso overlaps only documents with H2 sections
        chunker.chunks = _with_overlap(chunks, overlap)


def chunk_document(doc: Document, *, max_size: int = 4000, overlap: int = 0) -> list[Chunk]:
    """The document's chunks in order (spec §3; title `doc.display_title`)."""
    chunker = _Chunker(doc, max_size)
    h2s = doc.headings_at(2)
    if h2s:
        _sectioned(doc, chunker, h2s, overlap)
    else:
        chunker.paragraph_chunks(*_trimmed(doc.body, 0, len(doc.body)), ())
    return chunker.chunks or [Chunk(chunker.title, chunker.title, doc.body.strip())]


def searchable_content(doc: Document, chunk: Chunk) -> str:
    """The text the full-text index holds for a chunk: content plus labelled metadata (§3.7)."""
    (extra,) = search_extras(doc, [chunk])
    return f"{chunk.content}\n\n{extra}" if chunk.content else extra


def search_extras(doc: Document, chunks: Sequence[Chunk]) -> list[str]:
    """What each chunk's searchable text holds after its content (§3.7): the document's
    labelled metadata and source, which every chunk of it repeats, then the chunk's own
    expanded terms. The index stores this beside the content, so the content is not
    copied into a second string."""
    shared, own = search_labels(doc, chunks)
    return [shared if mine is None else f"{shared}\n\n{mine}" for mine in own]


def search_labels(doc: Document, chunks: Sequence[Chunk]) -> tuple[str, list[str | None]]:
    """`search_extras` in two parts: the labels every chunk repeats (stored once per
    document), and each chunk's own line (its expanded terms), or None."""
    labels = []
    if doc.aliases:
        labels.append("Also known as: " + ", ".join(doc.aliases))
    if doc.answers:
        labels.append("Questions this document answers: " + " | ".join(doc.answers))
    if doc.predicted_queries:
        labels.append("Predicted search queries: " + " | ".join(doc.predicted_queries))
    if doc.description:
        labels.append(doc.description)
    if doc.tags:
        labels.append("Keywords: " + ", ".join(doc.tags))
    labels.append("Source: " + doc.path)
    own = [terms.expanded_line(chunk.content) for chunk in chunks]
    return "\n\n".join(labels), own
