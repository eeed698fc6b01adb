"""Every link of a Markdown body with its place, and the repository paths its prose names in
inline code (pure; linear in the body's length).

Inline links and images (`[text](target)`, `![alt](target)`) are found with one `](` scan,
plus the targets of reference definitions (`[label]: target`), which reference-style links
use, and the `href` of an HTML `<a>` and the `src` of an `<img>`, in an HTML block or inline
(`html_ref`; a fix writes one back with `written_html`). A destination is read as CommonMark
reads it (6.3): bare, with its parentheses escaped or balanced, or in `<...>` on one line (a
space in a file name), backslash escapes and character references resolved (`destination`:
`c&amp;d.md` names `c&d.md`), a Hugo template in it read whole, spaces and all
(`{{< relref "x.md" >}}`); a fix writes one back with `written_destination`. A title may be
quoted or in parentheses, and a link's parts (a definition's destination too) may stand on
the lines after its `(` (`[ref]:` then `  x.md`), as a paragraph holds them; a definition
is read where a paragraph may start, never inside one (`_opens_paragraph`). Fenced and
indented code, code spans, a `]` or `[` escaped or a `](` no `[` opens, and HTML comments
are skipped (`text.mdcode`): none is rendered as a link.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections.abc import Callable
from collections.abc import Iterator
from html.entities import html5

from kenso_git.records import NamedTuple
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdcode import code_spans
from kenso_git.text.mdcode import escaped
from kenso_git.text.mdcode import outside_code_blocks
from kenso_git.text.parse import Document

LINK = "link"
IMAGE = "image"
DEFINITION = "definition"  # the target of `[label]: target`, used by `[text][label]`
CODE = "code"  # a backticked repository path in prose
HTML_LINK = "html link"  # the `href` of an HTML `<a>`
HTML_IMAGE = "html image"  # the `src` of an HTML `<img>`
HTML_KINDS = frozenset({HTML_LINK, HTML_IMAGE})

MAX_REFS = 5000  # links or code paths kept per document: a generated page stops there
# `](` outside code read per document: each asks which `[` opens it (up to _BRACKET_WINDOW
# characters back), so a page of brackets that open nothing stops there
MAX_LINK_SCANS = 20_000
_BRACKET_WINDOW = 1000  # characters looked back for a link's `[` (is it one? an image?)
_BRACKETS_LOOKED_AT = 64  # ... and brackets, when the nearest `[` is not plainly its opener
_PAREN_DEPTH = 8  # parentheses nested in a bare destination (cmark's 32: 4x slower on `](a(`)
# A site generator's template in a destination, spaces and all (`{{< relref "x.md" >}}`,
# `/docs/{{< param version >}}/api`): Hugo expands it before the Markdown is read.
TEMPLATE = r"\{\{<[^\n{}]{0,300}?>\}\}|\{\{%[^\n{}]{0,300}?%\}\}"
# Characters of a bare destination outside parentheses, a run at a time: no space or
# control character; a template; a backslash with the ASCII punctuation it escapes (`\(`
# opens nothing).
_CHAR = rf"(?:[^\x00-\x20()\\\x7f{{]++|{TEMPLATE}|\{{|\\[!-/:-@\[-`{{-~]?)"


def _bare(depth: int) -> str:
    """A bare destination's pattern: characters and balanced parentheses `depth` deep."""
    unit = _CHAR
    for _ in range(depth):
        unit = rf"(?:{_CHAR}|\({unit}*+\))"
    return rf"(?!<)(?:{unit})++"


# A link destination (group 1, as written): `<...>` (escapes, no line break, no bare `<`
# or `>`) or bare. Possessive: read once as CommonMark reads it, never backtracked into, so
# a failed match costs what it read (a `(` the scan reads opens a level: at most
# `_PAREN_DEPTH` overlapping failures read any character).
_DESTINATION = rf"(<(?:[^<>\\\r\n{{]++|{TEMPLATE}|\{{|\\[^\r\n])++>|{_bare(_PAREN_DEPTH)})"
# The tag names of an HTML block that may interrupt a paragraph (CommonMark 4.6, kinds 1
# and 6), case-blind
_HTML_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd"
    "|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset"
    "|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol"
    "|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title"
    "|tr|track|ul"
)
# What a line (after up to three spaces) starts that ends the paragraph before it, a list
# item aside: a quote, a `[` (a definition may start there, and the one-pass scan of
# `lint/notable` would not try a line a link runs on to), an ATX heading, a thematic
# break, a code fence, an HTML block of kinds 1 to 6
_BLOCK_START = (
    r"[>\[]|#{1,6}(?:[ \t\n]|$)"
    r"|(?:(?:\*[ \t]*+){3,}+|(?:-[ \t]*+){3,}+|(?:_[ \t]*+){3,}+)(?:\n|$)"
    r"|`{3,}+[^`\n]*+(?:\n|$)|~{3,}"
    r"|<(?:!--|\?|![A-Za-z]|!\[CDATA\[|(?i:script|pre|style|textarea)(?:[ \t>\n]|$)"
    rf"|/?(?i:{_HTML_NAMES})(?:[ \t>\n]|/>|$))"
)
# A line ending inside a link (CommonMark 6.3 allows one between its parts, and titles
# span lines): not one the paragraph ends at (a blank line, a block start, a list item
# that interrupts it): a link holds no such line.
_NEWLINE = (
    rf"\n(?![ \t]*(?:\n|$)|[ \t]{{0,3}}(?:{_BLOCK_START}"
    r"|[-+*][ \t]+[^ \t\n]|1[.)][ \t]+[^ \t\n]))"
)
_GAP = rf"[ \t]*+(?:{_NEWLINE}[ \t]*+)?"  # spaces and tabs, and at most one line ending
# The line ending between a definition's label and its destination: as `_NEWLINE`, and not
# before any list item, empty or numbered from 2 (markdown-it, which the tests compare
# with, ends a definition there; CommonMark reads no definition in either)
_DEFINITION_NEWLINE = (
    rf"\n(?![ \t]*(?:\n|$)|[ \t]{{0,3}}(?:{_BLOCK_START}"
    r"|(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t\n]|$)))"
)
# A link title: `"..."`, `'...'` or `(...)` (no unescaped `(` inside), backslash escapes
# and line endings in it, at most 512 characters or escapes read (a title never closed
# costs at most that much)
_TITLE = "|".join(
    rf"{left}(?:[^{inner}\\\n]|\\[^\n]|\\|{_NEWLINE}){{0,512}}+{right}"
    for left, inner, right in (('"', '"', '"'), ("'", "'", "'"), (r"\(", "()", r"\)"))
)
# What follows `](`: the destination, an optional title, the closing `)`
LINK_TARGET = re.compile(
    _GAP
    + _DESTINATION
    + rf"(?:(?:[ \t]++(?:{_NEWLINE}[ \t]*+)?|{_NEWLINE}[ \t]*+)(?:{_TITLE}))?"
    + _GAP
    + r"\)"
)
# `[label]: destination` on a line of its own, the destination on the label's line or the
# next, then the end of its line or a title that ends its line (group 3); `_DEFINITION`
# keeps those that start a paragraph
_DEFINITION_LINE = re.compile(
    r"^ {0,3}\[(?!\^)((?:[^\]\\\n]|\\.){1,999})\]:"
    + rf"[ \t]*+(?:{_DEFINITION_NEWLINE}[ \t]*+)?"
    + _DESTINATION
    + rf"(?=[ \t]+({_TITLE})[ \t]*$|[ \t]*$)",
    re.MULTILINE,
)
# `<a ... href="x">` and `<img ... src="x">`, in an HTML block or inline, case-blind as
# HTML is: the value (group 1, 2 or 3) double-quoted, single-quoted or bare
HTML_TAG = re.compile(
    r"<(?:a\s[^<>]{0,1000}?(?<=\s)href|img\s[^<>]{0,1000}?(?<=\s)src)\s*=\s*"
    r"(?:\"([^\"<>]*)\"|'([^'<>]*)'|([^\s\"'=<>`]+))",
    re.IGNORECASE,
)
# What a destination resolves (CommonMark 2.4, 2.5): a backslash escape of ASCII punctuation
# (group 1), and a character reference, hexadecimal (2), decimal (3) or named (4)
_RESOLVED = re.compile(
    r"\\([!-/:-@\[-`{-~])"
    r"|&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));"
)
# A `&` that starts what `_RESOLVED` reads as a reference: a fix writes it escaped
_REFERENCE_START = re.compile(
    r"&(?=#[xX][0-9a-fA-F]{1,6};|#[0-9]{1,7};|[A-Za-z][A-Za-z0-9]{0,31};)"
)
_BARE_SAFE = re.compile(r"[^\x00-\x20\x7f]+")
_PARENS = re.compile(r"[()]")
# An HTML comment's opening: the regex engine finds it faster than `in` (2.7 ms against
# 4.2 over the docs corpus' 7.9 MB of bodies, most of which have none)
_COMMENT = re.compile("<!--")
# `](target)`: one scan of a region finds every inline link's target in C.
_INLINE = re.compile(r"\]\(" + LINK_TARGET.pattern)
_MAX_CODE_PATH = 300  # characters of a code span read as a path (more: not a path)
# What follows a backtick run that may open a code span naming a path: any blank, then the
# path's first characters (group 1). `code_paths` pairs the runs; this finds, in C, the
# regions where one may stand (a superset: every path span's opening matches). A literal
# first backtick lets the engine skip to each; the lookbehind tries a run once, at its start.
CODE_OPENING = re.compile(r"`(?<!``)`*+\s*+([^`\s]{1,300})")
# A repository path as prose writes one: segments of word characters, dots, `@`, `+` and
# `-`, at least one slash, an optional trailing slash.
_PATH_TOKEN = re.compile(r"[\w@+-][\w.@+-]*(?:/[\w.@+-]+)+/?|[\w@+-][\w.@+-]*/")
# What may follow a path without being part of it: `:12`, `:12:3`, `::test_name`, `#anchor`.
_PATH_SUFFIX = re.compile(r"(?::\d+(?::\d+)?|::[\w.\[\]-]+|#[\w.-]*)$")


class LinkRef(NamedTuple):
    """A link target (or a code path), where it stands in the body."""

    kind: str  # LINK, IMAGE, DEFINITION or CODE
    target: str  # what it names, escapes resolved: `../x.md#part`, `a b.md`, `src/tool.py`
    offset: int  # character offset of the destination's first character in `Document.body`
    written: str = ""  # the destination as it stands there when not `target`: `<a b.md>`


def destination(written: str) -> str:
    """The target a link destination as written names: `<...>` unwrapped, backslash
    escapes and character references resolved (`<a\\>b.md>` -> `a>b.md`, `c&amp;d.md` ->
    `c&d.md`)."""
    if written[:1] == "<":
        written = written[1:-1]
    if "\\" in written or "&" in written:
        return _RESOLVED.sub(_resolved, written)
    return written


def _resolved(match: re.Match[str]) -> str:
    """What one `_RESOLVED` match stands for: the escaped character, or the character a
    reference names; a name HTML does not define, or a code point markdown-it (the
    CommonMark reader the tests compare with) does not decode (a control character, a
    surrogate, a noncharacter), stays as written."""
    escaped_char, hexadecimal, decimal, name = match.groups()
    if escaped_char is not None:
        return escaped_char
    if name is not None:
        return html5.get(name + ";", match[0])
    code = int(hexadecimal, 16) if hexadecimal is not None else int(decimal)
    return chr(code) if _decoded(code) else match[0]


def _decoded(code: int) -> bool:
    """Whether a numeric character reference to `code` is decoded."""
    low = code & 0xFFFF
    return not (
        code > 0x10FFFF
        or 0xD800 <= code <= 0xDFFF
        or 0xFDD0 <= code <= 0xFDEF
        or low in (0xFFFE, 0xFFFF)
        or code <= 0x08
        or code == 0x0B
        or 0x0E <= code <= 0x1F
        or 0x7F <= code <= 0x9F
    )


def written_destination(target: str, *, angled: bool) -> str:
    """`target` written as a link destination `destination` reads back: bare when it can be
    and `angled` is not asked (parentheses escaped unless balanced), else in `<...>`."""
    text = target.replace("\\", "\\\\") if "\\" in target else target
    if "&" in text:  # `&amp;` in a file name is written `\&amp;`: read as it is
        text = _REFERENCE_START.sub(r"\\&", text)
    if not angled and _BARE_SAFE.fullmatch(text) is not None:
        if text[:1] == "<":
            text = "\\" + text
        if ("(" in text or ")" in text) and not _balanced(text):
            text = _PARENS.sub(r"\\\g<0>", text)
        return text
    text = text.replace("<", "\\<").replace(">", "\\>")
    return "<" + text.replace("\r", "%0D").replace("\n", "%0A") + ">"


def _balanced(text: str) -> bool:
    """Whether the parentheses of `text` (no escaped one) pair up at most `_PAREN_DEPTH`
    deep, as a bare destination needs."""
    depth = 0
    for match in _PARENS.finditer(text):
        depth += 1 if match[0] == "(" else -1
        if not 0 <= depth <= _PAREN_DEPTH:
            return False
    return depth == 0


def link_ref(kind: str, written: str, offset: int) -> LinkRef:
    """The `LinkRef` of a destination as written at `offset` (escapes and character
    references resolved)."""
    if written[:1] == "<" or "\\" in written or "&" in written:
        target = destination(written)
        return LinkRef(kind, target, offset, "" if target == written else written)
    return LinkRef(kind, written, offset)


# A line after which a paragraph may start (CommonMark 4): blank, an ATX heading, a
# thematic break or a setext `-` underline, a code fence, an empty list item
_BLOCK_END = re.compile(
    r"[ \t]*$| {0,3}(?:#{1,6}(?:[ \t]|$)|(?:(?:\*[ \t]*+){3,}+|-[- \t]*+|(?:_[ \t]*+){3,}+)$"
    r"|`{3,}+[^`\n]*+$|~{3,}|(?:[+*]|[0-9]{1,9}[.)])[ \t]*$)",
    re.MULTILINE,
)
_SETEXT_EQUALS = re.compile(r" {0,3}=+[ \t]*$", re.MULTILINE)
_INDENTED = re.compile(r"(?: {4}| {0,3}\t)[ \t]*[^ \t\n]")  # a line indented four, not blank
_TITLE_LINE = re.compile(rf"[ \t]*(?:{_TITLE})[ \t]*$", re.MULTILINE)
_COMMENT_WINDOW = 4096  # characters looked back for the `<!--` of a line's `-->`
# the last line `_opens_paragraph` answered: (body, line start, answer)
_LAST_OPENS: list[tuple[str, int, bool]] = [("", -1, False)]


class _Definitions:
    """The reference definitions of a body (`_DEFINITION_LINE` matches) that CommonMark
    reads: those that start a paragraph (`_opens_paragraph`), as `finditer` over a region
    and as `match` at one line start alike (`lint/notable` asks a line at a time)."""

    __slots__ = ()

    def match(self, body: str, pos: int, end: int) -> re.Match[str] | None:
        """The definition at the line start `pos`, or None."""
        found = _DEFINITION_LINE.match(body, pos, end)
        return found if found is not None and _opens_paragraph(body, pos) else None

    def finditer(self, body: str, start: int, end: int) -> Iterator[re.Match[str]]:
        """The definitions of `body[start:end]`, in order."""
        for found in _DEFINITION_LINE.finditer(body, start, end):
            if _opens_paragraph(body, found.start()):
                yield found


_DEFINITION = _Definitions()


def _opens_paragraph(body: str, line: int) -> bool:
    """Whether a paragraph (where a definition may stand) may start at the line start
    `line`: a definition cannot interrupt a paragraph (CommonMark 4.7), so the line before
    must end a block (`_BLOCK_END`, a setext `=` underline, an HTML comment's last line,
    indented code) or a definition that itself starts one. The walk back over definitions
    stops at the line last answered, so a body's lines asked in order cost what they read."""
    at, flipped = line, False  # flipped: the answer is the opposite of the one for `at`
    while True:
        last_body, last_line, last_answer = _LAST_OPENS[0]
        if last_line == at and last_body is body:
            answer = last_answer != flipped
            break
        if at == 0:
            answer = not flipped
            break
        above = body.rfind("\n", 0, at - 1) + 1
        if _ends_block(body, above, at):
            answer = not flipped
            break
        if _SETEXT_EQUALS.match(body, above, at) is not None:
            # an underline (a block's end) under a paragraph's text, a paragraph's text
            # where a paragraph may start (a definition's last line is no paragraph's
            # text: markdown-it)
            at, flipped = above, not flipped
            continue
        opened = _definition_ending(body, above, at)
        if opened >= 0:
            at = opened
            continue
        if _INDENTED.match(body, above, at) is not None:
            # indented code when the line above it ends a block, a paragraph's text if not
            at = above
            continue
        answer = flipped
        break
    _LAST_OPENS[0] = (body, line, answer)
    return answer


def _definition_ending(body: str, line: int, end: int, *, titled: bool = True) -> int:
    """The start of the definition whose last line is `body[line:end]` (it starts there, or
    has its destination there, or, when `titled`, a title of a line's own), or -1."""
    if _DEFINITION_LINE.match(body, line, end) is not None:
        return line
    if line == 0:
        return -1
    above = body.rfind("\n", 0, line - 1) + 1
    found = _DEFINITION_LINE.match(body, above, end)
    if found is not None and found.end() > line:
        return above
    if not titled or _TITLE_LINE.match(body, line, end) is None:
        return -1
    opened = _definition_ending(body, above, line, titled=False)
    if opened < 0:
        return -1
    untitled = _DEFINITION_LINE.match(body, opened, line)
    return opened if untitled is not None and untitled[3] is None else -1


def _ends_block(body: str, line: int, end: int) -> bool:
    """Whether a paragraph may start after the line `body[line:end]` (`_BLOCK_END`, or the
    last line of an HTML comment block)."""
    return _BLOCK_END.match(body, line, end) is not None or _comment_ends(body, line, end)


def _comment_ends(body: str, line: int, end: int) -> bool:
    """Whether `body[line:end]` ends an HTML block that a `<!--` at a line start opened."""
    close = body.find("-->", line, end)
    if close < 0:
        return False
    opening = body.rfind("<!--", max(0, line - _COMMENT_WINDOW), close)
    if opening < 0 or body.find("-->", opening + 4, close) >= 0:
        return False
    start = body.rfind("\n", 0, opening) + 1
    return opening - start <= 3 and body[start:opening].strip(" ") == ""


def html_ref(body: str, match: re.Match[str], in_code: Callable[[int], bool]) -> LinkRef | None:
    """The `LinkRef` of an `HTML_TAG` match (entities resolved: `&amp;` is `&`), or None
    when it is text: in a code span, after an escaping backslash, or with no value."""
    at = match.start()
    if (at > 0 and body[at - 1] == "\\" and escaped(body, at)) or in_code(at):
        return None
    group = 1 if match[1] is not None else 2 if match[2] is not None else 3
    value = match[group]
    target = (html.unescape(value) if "&" in value else value).strip()
    if not target:
        return None
    kind = HTML_LINK if match[0][1] in "aA" else HTML_IMAGE
    return LinkRef(kind, target, match.start(group), "" if target == value else value)


def written_html(target: str) -> str:
    """`target` written as an HTML attribute value: `&` and the quotes as entities."""
    text = target.replace("&", "&amp;") if "&" in target else target
    if '"' in text or "'" in text:
        text = text.replace('"', "&quot;").replace("'", "&#39;")
    return text


def regions(doc: Document) -> Iterator[tuple[int, int]]:
    """The [start, end) ranges of the body outside code blocks and HTML comments (as
    `text.mdcode.CodeSpans` reads them: a `<!--` in a code span opens none)."""
    body = doc.body
    if _COMMENT.search(body) is None:
        yield from outside_code_blocks(doc)
        return
    start = 0
    for skip_start, skip_end in sorted((*code_blocks(doc), *code_spans(doc).comments())):
        if skip_start > start:
            yield start, skip_start
        start = max(start, skip_end)
    if start < len(body):
        yield start, len(body)


def region_list(doc: Document) -> list[tuple[int, int]]:
    """`regions` as a list."""
    return list(regions(doc))


def link_openings(
    pattern: re.Pattern[str], body: str, start: int, end: int
) -> Iterator[re.Match[str]]:
    """The matches of `pattern` (`](target)` first) in `body[start:end]`, and those that
    start inside one's destination after a `](` there: when no `[` opens the first, or it
    is in code, it is text, and a link inside its destination is a link (`x ](y[t](z.md))`).
    A caller that keeps a link passes over the matches before its end."""
    pos = start
    while (match := pattern.search(body, pos, end)) is not None:
        yield match
        at = match.start()
        pos = at + 2 if body.find("](", at + 2, match.end()) >= 0 else match.end()


def link_kind(body: str, at: int, floor: int) -> str | None:
    """LINK or IMAGE for the `](` at `at`, or None when it opens no link: its `]` is escaped,
    or no `[` from `floor` on, `_BRACKET_WINDOW` characters back at most, opens its text
    (none, or an escaped one: `\\[x](y.md)` is text, CommonMark 6.3)."""
    if body[at - 1] == "\\" and escaped(body, at):
        return None
    low = max(floor, at - _BRACKET_WINDOW)
    opened = body.rfind("[", low, at)
    if opened < 0:
        return None
    if body.find("]", opened, at) >= 0 or (opened > 0 and body[opened - 1] == "\\"):
        opened = _opener(body, at, low)
        if opened < 0:
            return None
    if opened > 0 and body[opened - 1] == "!" and not escaped(body, opened - 1):
        return IMAGE
    return LINK


def _opener(body: str, at: int, low: int) -> int:
    """The offset of the `[` that opens the link text closing at `at` (nested brackets
    paired, escaped ones passed over), or -1 when none does from `low` on within
    `_BRACKETS_LOOKED_AT` brackets (each step jumps to the next bracket back in C), or when
    a link stands inside its text: a link holds no link (CommonMark 6.3), so its `]` is
    text, and a link after it is not swallowed (`[[a](a.md) ](b[c](c.md))`)."""
    depth, linked, inner = 0, list[bool](), False
    opens, closes = body.rfind("[", low, at), body.rfind("]", low, at)
    for _ in range(_BRACKETS_LOOKED_AT):
        if opens < 0:
            return -1
        if closes > opens:
            if not escaped(body, closes):
                depth += 1
                target = body.startswith("(", closes + 1) and LINK_TARGET.match(body, closes + 2)
                linked.append(bool(target))
            closes = body.rfind("]", low, closes)
            continue
        if not escaped(body, opens):
            image = opens > 0 and body[opens - 1] == "!" and not escaped(body, opens - 1)
            if depth == 0:
                return -1 if inner and not image else opens
            depth -= 1
            inner = inner or (linked.pop() and not image)
        opens = body.rfind("[", low, opens)
    return -1


def links(doc: Document, spans: list[tuple[int, int]] | None = None) -> list[LinkRef]:
    """The document's inline links, images and reference definitions, in body order
    (`spans`: its `regions`, when the caller has them already): the first `MAX_REFS`."""
    return scan_links(doc, spans)[0]


def scan_links(
    doc: Document, spans: list[tuple[int, int]] | None = None, cap: int = MAX_REFS
) -> tuple[list[LinkRef], int]:
    """`links` (the first `cap`), and the body offset of the first `](` left unread because
    `MAX_LINK_SCANS` bound (-1: it bound nowhere; definitions are read past it). A `](` in
    a code span counts toward no cap (asking costs a lookup, as a fenced one costs none)."""
    body, found, scans, stopped = doc.body, list[LinkRef](), 0, -1
    tagged = False  # an HTML `<a href>` or `<img src>` was found
    find = body.find
    in_code = code_spans(doc).inside
    definitions = "]:" in body
    for start, end in regions(doc) if spans is None else spans:
        scans, stopped = _inline_links(body, start, end, in_code, found, cap, scans, stopped)
        if definitions and find("]:", start, end) >= 0:
            found.extend(
                link_ref(DEFINITION, m[2], m.start(2))
                for m in _DEFINITION.finditer(body, start, end)
                if not in_code(m.start())  # a code span over lines may hold one
            )
        if find("<", start, end) >= 0:
            tags = [
                ref
                for m in HTML_TAG.finditer(body, start, end)
                if (ref := html_ref(body, m, in_code))
            ]
            if tags:
                found.extend(tags)
                tagged = True
    if definitions or tagged:  # inline links come in body order; the others join them here
        found.sort(key=_offset)
    return (found[:cap] if len(found) > cap else found), stopped


def _inline_links(
    body: str,
    start: int,
    end: int,
    in_code: Callable[[int], bool],
    found: list[LinkRef],
    cap: int,
    scans: int,
    stopped: int,
) -> tuple[int, int]:
    """`scan_links`' inline links and images of `body[start:end]`, added to `found`:
    (`scans` and `stopped`, brought up to date). A `](` that opens no link and holds
    another in its destination is text, and the scan reads on from inside it (`x ](y[t](z.md))`:
    `[t](z.md)` is a link); one inside a link kept is its destination's."""
    # the loop runs once per link of a corpus (12,500 in the docs corpus): names bound here
    append, rfind, find = found.append, body.rfind, body.find
    full = len(found) >= cap
    pos = covered = start  # the last link kept ends at `covered`
    while pos < end:
        restart = end
        for match in _INLINE.finditer(body, pos, end):
            at = match.start()
            if at < covered:
                continue
            kind = None
            if not in_code(at):
                scans += 1
                if full or scans > MAX_LINK_SCANS:
                    return scans, at if stopped < 0 and not full else stopped
                # `link_kind`'s common case inline: the nearest `[`, unescaped, opens the text
                low = at - _BRACKET_WINDOW if at - _BRACKET_WINDOW > start else start
                opened = rfind("[", low, at)
                if (
                    opened > 0
                    and body[opened - 1] not in "\\!"
                    and body[at - 1] != "\\"
                    and find("]", opened, at) < 0
                ):
                    kind = LINK
                else:
                    kind = link_kind(body, at, start)
            if kind is None:
                if find("](", at + 2, match.end()) >= 0:
                    restart = at + 2
                    break
                continue
            append(link_ref(kind, match[1], match.start(1)))
            covered, full = match.end(), len(found) >= cap
        pos = restart
    return scans, stopped


def _offset(ref: LinkRef) -> int:
    return ref.offset


def path_token(code: str) -> str | None:
    """The repository path an inline code span names (`src/tool.py:12` -> `src/tool.py`),
    or None when it does not look like one (a command, a URL, a pattern, one word)."""
    token = _PATH_SUFFIX.sub("", code.strip())
    if _PATH_TOKEN.fullmatch(token) is None:
        return None
    parts = token.rstrip("/").split("/")
    if any(part in (".", "..") or not part.strip(".") for part in parts):
        return None
    return token


def code_paths(
    doc: Document, spans: list[tuple[int, int]] | None = None, cap: int = MAX_REFS
) -> list[LinkRef]:
    """The inline code spans of the body that look like repository paths, in body order
    (`spans`: its `regions`, when the caller has them already; a code span counts where it
    opens): the first `cap`."""
    body, found = doc.body, list[LinkRef]()
    if "`" not in body:
        return found
    code = code_spans(doc).spans()
    if not code:
        return found
    opens = [start for start, _end, _width in code]
    for start, end in regions(doc) if spans is None else spans:
        for at in range(bisect_left(opens, start), len(code)):
            opened, closed, width = code[at]
            if opened >= end:
                break
            text = body[opened + width : closed - width]
            if len(text) > _MAX_CODE_PATH or "/" not in text:
                continue
            token = path_token(text)
            if token is None:
                continue
            lead = len(text) - len(text.lstrip())
            found.append(LinkRef(CODE, token, opened + width + lead))
            if len(found) >= cap:
                return found
    return found


def first_unchecked(doc: Document, spans: list[tuple[int, int]] | None = None) -> int | None:
    """The body offset of the first link or code path `links` and `code_paths` leave out
    (past `MAX_REFS` of either, or past the `MAX_LINK_SCANS` `](` looked at), or None when
    they keep every one. Scans again, one past the caps: ask it of a capped page only."""
    spans = region_list(doc) if spans is None else spans
    found, stopped = scan_links(doc, spans, MAX_REFS + 1)
    paths = code_paths(doc, spans, MAX_REFS + 1)
    past = [refs[MAX_REFS].offset for refs in (found, paths) if len(refs) > MAX_REFS]
    if stopped >= 0 and (link := _next_link(doc, spans, stopped)) is not None:
        past.append(link)
    return min(past, default=None)


def _next_link(doc: Document, spans: list[tuple[int, int]], at: int) -> int | None:
    """The target offset of the first inline link from `at` on (outside code spans, opened
    by a `[`): what the scan would have kept next had `MAX_LINK_SCANS` not bound."""
    body, in_code = doc.body, code_spans(doc).inside
    for start, end in spans:
        if end <= at:
            continue
        for match in link_openings(_INLINE, body, max(start, at), end):
            pos = match.start()
            if not in_code(pos) and link_kind(body, pos, start) is not None:
                return match.start(1)
    return None
