"""The `#fragment`s a Markdown document offers: its headings under GitHub's slug rules, explicit
`{#id}` attributes and HTML `id`/`name` attributes (pure; linear in the body's length).

GitHub (github-slugger) lower-cases a heading's rendered text, drops every character that is
not a letter, a digit, a mark, `_`, `-` or a space, and turns each space into `-`; the second
heading with the same slug gets `-1`, the third `-2` (skipping any slug already taken).
The rendered text loses link, HTML and emphasis markup; an `_` is dropped only where
CommonMark's delimiter rules make it emphasis (`_private`, `MY_PREFIX_` and `\\_` keep theirs).
Headings are the parser's ATX headings, setext headings, and the ATX headings it leaves out
(indented, a tab after the hashes, in a block quote or list item, in a list item's content
indented 4 or more past the margin).

An MkDocs site renders other ids (Python-Markdown's `toc`, `text.tocslug`), and so does a
Hugo site whose config sets `autoHeadingIDType` (`text.hugoslug`): asked with `toc` or
`hugo`, `anchors` offers those too (`dialect_anchors` keeps them apart).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from kenso_git.text.fences import width_at
from kenso_git.text.headingtext import label
from kenso_git.text.headingtext import rendered
from kenso_git.text.hugoslug import HUGO_ID_TYPES
from kenso_git.text.hugoslug import blackfriday_slug
from kenso_git.text.hugoslug import github_ascii_slug
from kenso_git.text.hugoslug import hugo_ids
from kenso_git.text.mdlinks import region_list
from kenso_git.text.parse import Document
from kenso_git.text.tocslug import TocIds
from kenso_git.text.tocslug import toc_slug

_HUGO_SLUGS = dict(zip(HUGO_ID_TYPES, (blackfriday_slug, github_ascii_slug), strict=True))
_ASCII_DROP = re.compile(r"[^a-z0-9 _-]")
_ATTRIBUTE = re.compile(r"\{:?\s*#([^\s}]+)[^}]*\}\s*$")  # `{#id}`, `{: #id .class}`
_HTML_ID = re.compile(
    r"<[A-Za-z][\w-]*\s[^<>]{0,400}?\b(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+))",
    re.IGNORECASE,
)
_ATX_LINE = (  # containers (`>`, list markers), then an ATX heading: its text in group 1
    r"(?:[ ]{0,3}+(?:>[ \t]?+|(?:[-+*]|[0-9]{1,9}[.)])[ \t]{1,4}+(?![ \t])))*+"
    r"[ ]{0,3}+#{1,6}(?:[ \t]+(.*))?(?=\n|$)"
)
_ATX = re.compile(r"\n" + _ATX_LINE)
_ATX_FIRST = re.compile(_ATX_LINE)
_ORDERED = re.compile(r" {0,3}([0-9]{1,9})[.)]")
_SETEXT = re.compile(r"\n((?:[ ]{0,3}>[ ]?)*+)( *)(=+|-+)[ \t]*(?=\n|$)")
_QUOTE = re.compile(r"[ ]{0,3}>[ ]?")
# a block quote's `>` or a list item's marker opening a line (the item's content column:
# where the match ends), and what in such a container is no paragraph
_OPENER = re.compile(r" {0,3}(?:>[ ]?|(?:[-+*]|[0-9]{1,9}[.)]) {1,4}(?! ))")
_NOT_TEXT = re.compile(r"#{1,6}(?:[ \t]|$)|```|~~~|<[A-Za-z/!?]|(?:([-*_])[ \t]*)(?:\1[ \t]*){2,}$")
_INDENTED = re.compile(r" {0,3}\t| {4}")
_DEEP_ATX = re.compile(r"^(?: {4}| {0,3}\t)[ \t]*#{1,6}(?:[ \t]+(.*))?$", re.MULTILINE)
_DEFINED = re.compile(  # a reference definition's label, after any containers
    r"^(?:[ ]{0,3}(?:>[ ]?|(?:[-+*]|[0-9]{1,9}[.)])[ ]+))*+[ ]{0,3}"
    r"\[((?:[^\\\[\]]|\\.){1,999})\]:[ \t]*(?:\n[ \t]*)?[^\s]",
    re.MULTILINE,
)
_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$)")
_BLOCK_START = re.compile(  # a line's text (after its indentation) that is no lazy line
    r"(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)|#{1,6}(?:[ \t]|$)|>|```|~~~"
    r"|(?:([-*_])[ \t]*)(?:\1[ \t]*){2,}$"
)
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[-*+>|#<]|\d{1,9}[.)]\s|```|~~~)|\s{4}")


def slug(text: str) -> str:
    """GitHub's slug of a heading's rendered text (no duplicate suffix)."""
    lowered = text.lower()
    if lowered.isascii():
        return _ASCII_DROP.sub("", lowered).replace(" ", "-")
    out = []
    for char in lowered:
        if char == " ":
            out.append("-")
        elif char.isalnum() or char in "-_" or unicodedata.category(char)[0] in "MN":
            out.append(char)
    return "".join(out)


def _labels(doc: Document, spans: list[tuple[int, int]]) -> frozenset[str]:
    """The labels of `doc`'s reference definitions outside code."""
    body = doc.body
    return frozenset(
        label(m[1]) for start, end in spans for m in _DEFINED.finditer(body, start, end)
    )


class _Slugger:
    """github-slugger's occurrences: `x`, `x-1`, `x-2`, never a slug already handed out."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def take(self, base: str) -> str:
        result = base
        while result in self.seen:
            self.seen[base] += 1
            result = f"{base}-{self.seen[base]}"
        self.seen[result] = 0
        return result


def _heading_texts(doc: Document, spans: list[tuple[int, int]]) -> Iterator[tuple[int, str]]:
    """(body offset, raw text) of every ATX and setext heading outside code, in body order
    (`spans`: the body's `region_list`)."""
    found = [(h.offset, h.text) for h in doc.headings]
    found.extend(_more_atx(doc, spans))
    found.extend((offset, text) for offset, _level, text in _setext_headings(doc, spans))
    yield from sorted(found)


def _more_atx(doc: Document, spans: list[tuple[int, int]]) -> Iterator[tuple[int, str]]:
    """The ATX headings the parser leaves to others (indented, a tab after the hashes, in
    a block quote or a list item): GitHub gives them anchors too."""
    body, known = doc.body, {h.offset for h in doc.headings}
    first = _ATX_FIRST.match(body)
    if first is not None and first[1] and spans and spans[0][0] == 0 and 0 not in known:
        yield 0, first[1].strip()
    for start, end in spans:
        for match in _ATX.finditer(body, max(start - 1, 0), end):
            text = match[1].strip() if match[1] else ""
            at = match.start() + 1
            if text and at not in known and not _continues_paragraph(body, at):
                yield at, text
    if _DEEP_ATX.search(body) is not None:
        yield from _list_content_atx(body, spans)


def _list_content_atx(body: str, spans: list[tuple[int, int]]) -> Iterator[tuple[int, str]]:
    """The ATX headings indented by 4 or more that are a list item's content, indented up
    to 3 past the item's content column (`- a` then `    ### Step`), not code."""
    columns, span, start, size = _ListColumns(), 0, 0, len(body)
    gap = True  # the line before was in code or a comment (or there was none)
    while start < size:
        end = body.find("\n", start) % (size + 1)
        while span < len(spans) and spans[span][1] <= start:
            span += 1
        if span < len(spans) and spans[span][0] <= start:
            width, top = columns.read(body[start:end])
            heading = _DEEP_ATX.match(body, start, end) if width >= 4 else None
            if heading is not None and columns.open and 0 <= width - top <= 3 and heading[1]:
                yield start, heading[1].strip()
            gap = False
        elif not gap:  # a code block or comment's first line closes the items it is left of
            columns.close(body[start:end])
            gap = True
        start = end + 1


class _ListColumns:
    """The content columns of the list items open at each line, read in body order."""

    __slots__ = ("open", "paragraph")

    def __init__(self) -> None:
        self.open: list[int] = []
        self.paragraph = False  # the line before is a paragraph's: the next may be lazy

    def close(self, line: str) -> None:
        """A line of code or a comment: the items left of it end (an indented block: all)."""
        width, at = width_at(line, 0, 0)
        if width >= 4 and not line.startswith(("```", "~~~"), at):
            self.open.clear()
        while self.open and self.open[-1] > width:
            self.open.pop()
        self.paragraph = False

    def read(self, line: str) -> tuple[int, int]:
        """(the line's indentation, the innermost open item's content column or 0)."""
        width, at = width_at(line, 0, 0)
        if at == len(line):
            self.paragraph = False
            return width, self.open[-1] if self.open else 0
        top = self.open[-1] if self.open else 0
        if self.paragraph and (width - top >= 4 or not _interrupts(line, at)):
            return width, self.open[-1] if self.open else 0  # a lazy line of the paragraph
        while self.open and self.open[-1] > width:
            self.open.pop()
        column, content = width, at
        while column - (self.open[-1] if self.open else 0) <= 3:
            marker = _ITEM.match(line, content)
            if marker is None:
                break
            spaces, after = width_at(line, marker.end(), column + len(marker[0]))
            if after == len(line) or spaces - column - len(marker[0]) > 4:
                self.open.append(column + len(marker[0]) + 1)  # empty, or indented code
                self.paragraph = False
                return width, self.open[-1]
            column, content = spaces, after
            self.open.append(column)
        self.paragraph = _NOT_TEXT.match(line, content) is None
        return width, self.open[-1] if self.open else 0


def _interrupts(line: str, at: int) -> bool:
    """Whether the line whose text starts at `at` ends a paragraph above it: a list item
    does only when it starts at 1 and is not empty (CommonMark 5.2)."""
    if _BLOCK_START.match(line, at) is None:
        return False
    ordered = _ORDERED.match(line, at)
    if ordered is not None and int(ordered[1]) != 1:
        return False
    item = _ITEM.match(line, at)
    return item is None or bool(line[item.end() :].strip())


def _continues_paragraph(body: str, at: int) -> bool:
    """Whether the line at `at` opens a list that starts at a number other than 1 right
    under a paragraph line: such a list cannot interrupt a paragraph (CommonMark 5.2)."""
    ordered = _ORDERED.match(body, at)
    if ordered is None or int(ordered[1]) == 1 or at == 0:
        return False
    above = body[body.rfind("\n", 0, at - 1) + 1 : at - 1]
    return bool(above.strip()) and _NOT_PARAGRAPH.match(above) is None


def _setext_headings(doc: Document, spans: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
    """(body offset of the underline's newline, level, text) of each setext heading."""
    body = doc.body
    for start, end in spans:
        floor = start  # a paragraph starts after the last heading's underline
        for match in _SETEXT.finditer(body, max(start - 1, 0), end):
            if not match[1]:
                text = _setext_text(body, match.start(), floor, len(match[2]))
            else:
                depth = match[1].count(">")
                text = _quoted_setext_text(body, match.start(), floor, depth, len(match[2]))
            if text is not None:
                yield match.start(), 1 if match[3][0] == "=" else 2, text
                floor = match.end()


def setext_levels(doc: Document) -> frozenset[int]:
    """The levels of `doc`'s setext headings outside code: 1 (`===` under a paragraph),
    2 (`---` under a paragraph; after a blank line it is a thematic break)."""
    return frozenset(level for _at, level, _text in _setext_headings(doc, region_list(doc)))


def _setext_text(body: str, newline: int, floor: int, indent: int) -> str | None:
    """The paragraph a setext underline at `body[newline + 1]`, indented by `indent`, makes
    a heading, or None. A paragraph that starts in a list item or block quote is underlined
    only from inside it: under its lazy lines a `---` is a thematic break and a `===` more
    of the paragraph (CommonMark 4.3, 5.1, 5.2)."""
    lines: list[str] = []
    end, code = newline, 0  # code: how many of the topmost lines are indented by 4 or more
    while end > floor and len(lines) <= 8:
        start = body.rfind("\n", floor, end) + 1 or floor
        line = body[start:end]
        if not line.strip():
            break
        if _NOT_PARAGRAPH.match(line) and _INDENTED.match(line) is None:
            return _under_container(body, start, lines, indent, code)
        lines.append(line.strip())
        code = code + 1 if _INDENTED.match(line) else 0
        end = start - 1
    if len(lines) > 8:
        code = 0
    return _joined(lines[: len(lines) - code]) if indent <= 3 else None


def _quoted_setext_text(body: str, newline: int, floor: int, depth: int, indent: int) -> str | None:
    """`_setext_text` of an underline in `depth` block quotes (`> Title` over `> =====`):
    a paragraph that opens in those quotes, its lazy lines left of them."""
    lines: list[tuple[int, str]] = []
    end, code = newline, 0
    while end > floor and len(lines) <= 8:
        start = body.rfind("\n", floor, end) + 1 or floor
        at, level = start, 0
        while level <= depth and (quote := _QUOTE.match(body, at, end)) is not None:
            at, level = quote.end(), level + 1
        rest = body[at:end]
        if level > depth:
            return None  # a deeper quote's paragraph: the underline is its lazy line
        if not rest.strip():
            break
        if _NOT_PARAGRAPH.match(rest) and _INDENTED.match(rest) is None:
            opened = _container_paragraph(rest)
            if opened is not None and level == depth:
                column, text = opened
                if column < 0 or not 0 <= indent - column <= 3:
                    return None
                lines, code, indent = [*lines, (depth, text)], 0, 0
            break
        lines.append((level, rest.strip()))
        code = code + 1 if _INDENTED.match(rest) else 0
        end = start - 1
    lines = lines[: len(lines) - code]
    if not lines or lines[-1][0] != depth or indent > 3:
        return None  # (opened outside these quotes, or in a deeper one)
    return " ".join(text for _level, text in reversed(lines))


def _under_container(body: str, start: int, lines: list[str], indent: int, code: int) -> str | None:
    """`_setext_text` of the `lines` (bottom up) under a line at `start` that is not a
    paragraph's, which may open a list item or block quote whose paragraph they continue
    (the topmost `code` of them are indented by 4 or more: code if they do not)."""
    line = body[start : body.find("\n", start) % (len(body) + 1)]
    opened = _container_paragraph(line)
    if opened is None or _continues_paragraph(body, start):
        return _joined(lines[: len(lines) - code]) if indent <= 3 else None
    column, text = opened
    if column < 0 or not 0 <= indent - column <= 3:
        return None  # (a block quote's paragraph: no line here underlines it)
    return _joined([*lines, text])


def _joined(lines: list[str]) -> str | None:
    """A paragraph's text from its lines bottom up, or None when it has none."""
    return " ".join(reversed(lines)) if lines else None


def _container_paragraph(line: str) -> tuple[int, str] | None:
    """(the content column, -1 in a block quote; the text) of a line that opens list items
    or block quotes whose content is a paragraph's first line, else None."""
    at, quoted = 0, False
    while (opener := _OPENER.match(line, at)) is not None:
        quoted = quoted or ">" in opener[0]
        at = opener.end()
    text = line[at:].strip()
    if at == 0 or not text or _NOT_TEXT.match(line, at) or line.startswith("    ", at):
        return None
    return -1 if quoted else at, text


def _unclosed(raw: str) -> str:
    """`raw` without an ATX heading's closing `#`s (and the space before them), if any."""
    bare = raw.rstrip().rstrip("#")
    if not bare:
        return ""
    return bare.rstrip() if bare[-1].isspace() else raw


def _heading_anchor(raw: str, labels: frozenset[str] | None) -> tuple[str | None, str]:
    """(the heading's `{#id}`, else None; its rendered text, which its slugs are made of)."""
    text = _unclosed(raw) if raw.endswith("#") else raw
    attribute = _ATTRIBUTE.search(text)
    if attribute is None:
        return None, rendered(text.strip(), labels)
    return attribute[1], rendered(text[: attribute.start()].strip(), labels)


def heading_anchors(doc: Document, *, toc: bool = False, hugo: str | None = None) -> frozenset[str]:
    """The fragments `doc`'s ATX headings make before duplicate suffixes, and their
    `{#id}`s: a part of `anchors` found without reading the body (each heading's first
    slug is handed to it or to an earlier heading), enough to pass most fragments. With
    `toc`, Python-Markdown's slugs too; with `hugo`, the slugs of that `autoHeadingIDType`
    (`anchors`)."""
    out = set[str]()
    make = _HUGO_SLUGS.get(hugo or "")
    labels = None
    if any("][" in heading.text for heading in doc.headings):
        labels = _labels(doc, region_list(doc))
    for heading in doc.headings:
        attribute, text = _heading_anchor(heading.text, labels)
        if attribute is not None:
            out.add(attribute)
        out.add(slug(text))
        if toc and attribute is None:
            out.add(toc_slug(text))
        if make is not None and attribute is None:
            out.add(make(text) or "heading")
    out.discard("")
    return frozenset(out)


def anchors(doc: Document, *, toc: bool = False, hugo: str | None = None) -> frozenset[str]:
    """Every fragment that leads somewhere in `doc` (as GitHub renders it; with `toc`, as
    MkDocs renders it too: Python-Markdown's `toc` ids, `text.tocslug`; with `hugo`, as
    Hugo's Goldmark renders it under that `autoHeadingIDType`: `text.hugoslug`)."""
    kinds = (hugo,) if hugo in _HUGO_SLUGS else ()
    github, more, site = dialect_anchors(doc, toc=toc, hugo=kinds)
    for made in site.values():
        more |= made
    return github | more if more else github


def dialect_anchors(
    doc: Document, *, toc: bool = True, hugo: tuple[str, ...] = HUGO_ID_TYPES
) -> tuple[frozenset[str], frozenset[str], dict[str, frozenset[str]]]:
    """(every fragment that leads somewhere in `doc` as GitHub renders it; with `toc`, the
    ones MkDocs renders besides: Python-Markdown's `toc` ids of its headings; for each
    `autoHeadingIDType` in `hugo`, the ids Hugo gives its headings under it)."""
    slugger, out = _Slugger(), set[str]()
    spans = region_list(doc)
    texts = list(_heading_texts(doc, spans))
    labels = _labels(doc, spans) if any("][" in raw for _at, raw in texts) else None
    headings = [_heading_anchor(raw, labels) for _offset, raw in texts]
    for attribute, text in headings:
        if attribute is not None:
            out.add(attribute)
        out.add(slugger.take(slug(text)))
    body = doc.body
    if "=" in body:
        for start, end in spans:
            if body.find("<", start, end) < 0:
                continue
            out.update(
                m[1] or m[2] or m[3] for m in _HTML_ID.finditer(body, start, end) if any(m.groups())
            )
    out.discard("")
    github = frozenset(out)
    site = {kind: frozenset(hugo_ids(kind, headings)) for kind in hugo}
    if not toc:
        return github, frozenset(), site
    # the `{#id}`s are taken first: the extension never overrides an id
    ids = TocIds(attribute for attribute, _text in headings if attribute is not None)
    made = {ids.take(toc_slug(text)) for attribute, text in headings if attribute is None}
    return github, frozenset(made - github), site
