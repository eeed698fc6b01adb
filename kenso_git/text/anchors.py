"""The `#fragment`s a Markdown document offers: its headings under GitHub's slug rules, explicit
`{#id}` attributes and HTML `id`/`name` attributes (pure; linear in the body's length).

GitHub (github-slugger) lower-cases a heading's rendered text, drops every character that is
not a letter, a digit, a mark, `_`, `-` or a space, and turns each space into `-`; the second
heading with the same slug gets `-1`, the third `-2` (skipping any slug already taken).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator

from kenso_git.text.mdlinks import region_list
from kenso_git.text.parse import Document

_ASCII_DROP = re.compile(r"[^a-z0-9 _-]")
_ATTRIBUTE = re.compile(r"\s*\{:?\s*#([^\s}]+)[^}]*\}\s*$")  # `{#id}`, `{: #id .class}`
_CLOSING = re.compile(r"(?:^|\s+)#+\s*$")
_CODE = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_TAG = re.compile(r"(?<!\\)</?[A-Za-z][^<>]*>")  # `\<name>` is text, not a tag
_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")  # emphasis, not snake_case
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_HTML_ID = re.compile(
    r"<[A-Za-z][\w-]*\s[^<>]{0,400}?\b(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+))",
    re.IGNORECASE,
)
_SETEXT = re.compile(r"\n {0,3}(=+|-+)[ \t]*(?=\n|$)")
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


def rendered(text: str) -> str:
    """A heading's text as rendered: code, link and emphasis markup and HTML tags dropped."""
    if "`" not in text:  # most headings: no code span to keep as it is
        return _inline(text)
    parts, last = [], 0
    for match in _CODE.finditer(text):
        parts.append(_inline(text[last : match.start()]))
        parts.append(match[2].strip() if match[2].strip() else match[2])
        last = match.end()
    parts.append(_inline(text[last:]))
    return "".join(parts)


def _inline(text: str) -> str:
    if "[" in text:
        text = _LINK.sub(r"\1", _IMAGE.sub("", text))
    if "<" in text:
        text = _TAG.sub("", text)
    if "_" in text:
        text = _UNDERSCORES.sub("", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    return html.unescape(text) if "&" in text else text


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
    body = doc.body
    for start, end in spans:
        for match in _SETEXT.finditer(body, max(start - 1, 0), end):
            text = _setext_text(body, match.start(), start)
            if text is not None:
                found.append((match.start(), text))
    yield from sorted(found)


def _setext_text(body: str, newline: int, floor: int) -> str | None:
    """The paragraph a setext underline at `body[newline + 1]` makes a heading, or None."""
    lines: list[str] = []
    end = newline
    while end > floor:
        start = body.rfind("\n", floor, end) + 1 or floor
        line = body[start:end]
        if not line.strip():
            break
        if _NOT_PARAGRAPH.match(line):
            if not lines:
                return None
            break
        lines.append(line.strip())
        end = start - 1
        if len(lines) > 8:
            break
    return " ".join(reversed(lines)) if lines else None


def _heading_anchor(raw: str) -> tuple[str | None, str]:
    """(the heading's `{#id}`, else None; its slug before any duplicate suffix)."""
    text = _CLOSING.sub("", raw) if raw.endswith("#") else raw
    attribute = _ATTRIBUTE.search(text)
    if attribute is None:
        return None, slug(rendered(text.strip()))
    return attribute[1], slug(rendered(text[: attribute.start()].strip()))


def heading_anchors(doc: Document) -> frozenset[str]:
    """The fragments `doc`'s ATX headings make before duplicate suffixes, and their
    `{#id}`s: a part of `anchors` found without reading the body (each heading's first
    slug is handed to it or to an earlier heading), enough to pass most fragments."""
    out = set[str]()
    for heading in doc.headings:
        attribute, base = _heading_anchor(heading.text)
        if attribute is not None:
            out.add(attribute)
        out.add(base)
    out.discard("")
    return frozenset(out)


def anchors(doc: Document) -> frozenset[str]:
    """Every fragment that leads somewhere in `doc` (as GitHub renders it)."""
    slugger, out = _Slugger(), set[str]()
    spans = region_list(doc)
    for _offset, raw in _heading_texts(doc, spans):
        attribute, base = _heading_anchor(raw)
        if attribute is not None:
            out.add(attribute)
        out.add(slugger.take(base))
    body = doc.body
    if "=" in body:
        for start, end in spans:
            if body.find("<", start, end) < 0:
                continue
            out.update(
                m[1] or m[2] or m[3] for m in _HTML_ID.finditer(body, start, end) if any(m.groups())
            )
    out.discard("")
    return frozenset(out)
