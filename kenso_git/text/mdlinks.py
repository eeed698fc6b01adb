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
is read where a paragraph may start, never inside one (`text.mddefs`). Fenced and
indented code, code spans, a `]` or `[` escaped or a `](` no `[` opens, and HTML comments
are skipped (`text.mdcode`): none is rendered as a link.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections.abc import Callable
from collections.abc import Iterator

from kenso_git.records import NamedTuple
from kenso_git.text.charrefs import REFERENCE
from kenso_git.text.charrefs import reference
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdcode import code_spans
from kenso_git.text.mdcode import escaped
from kenso_git.text.mdcode import outside_code_blocks
from kenso_git.text.mddefs import DEFINITIONS
from kenso_git.text.mdsyntax import DESTINATION
from kenso_git.text.mdsyntax import GAP
from kenso_git.text.mdsyntax import NEWLINE
from kenso_git.text.mdsyntax import PAREN_DEPTH
from kenso_git.text.mdsyntax import TITLE
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
# What follows `](`: the destination, an optional title, the closing `)`
LINK_TARGET = re.compile(
    GAP
    + DESTINATION
    + rf"(?:(?:[ \t]++(?:{NEWLINE}[ \t]*+)?|{NEWLINE}[ \t]*+)(?:{TITLE}))?"
    + GAP
    + r"\)"
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
_RESOLVED = re.compile(r"\\([!-/:-@\[-`{-~])|" + REFERENCE)
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
    reference names (`text.charrefs.reference`: an unknown name or an undecoded code
    point stays as written)."""
    escaped_char = match[1]
    return escaped_char if escaped_char is not None else reference(match)


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
    if text[:1] in ("!", "?"):  # `<!--`, `<?`, `<!X` would open HTML (a comment): escaped
        text = "\\" + text
    return "<" + text.replace("\r", "%0D").replace("\n", "%0A") + ">"


def _balanced(text: str) -> bool:
    """Whether the parentheses of `text` (no escaped one) pair up at most `PAREN_DEPTH`
    deep, as a bare destination needs."""
    depth = 0
    for match in _PARENS.finditer(text):
        depth += 1 if match[0] == "(" else -1
        if not 0 <= depth <= PAREN_DEPTH:
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
                for m in DEFINITIONS.finditer(body, start, end)
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
