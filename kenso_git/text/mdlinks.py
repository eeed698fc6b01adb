"""Every link of a Markdown body with its place, and the repository paths its prose names in
inline code (pure; linear in the body's length).

Inline links and images (`[text](target)`, `![alt](target)`) are found as `text.links` finds
them for the link graph (the same `](` scan, target pattern and code rules of
`text.mdcode`), plus the targets of reference definitions (`[label]: target`), which
reference-style links use. Fenced and indented code, code spans, escaped brackets and HTML
comments are skipped: none is rendered as a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kenso_git.records import NamedTuple
from kenso_git.text.links import LINK_TARGET
from kenso_git.text.links import MAX_LINK_SCANS
from kenso_git.text.mdcode import CodeSpans
from kenso_git.text.mdcode import code_blocks
from kenso_git.text.mdcode import escaped
from kenso_git.text.mdcode import outside_code_blocks
from kenso_git.text.parse import Document

LINK = "link"
IMAGE = "image"
DEFINITION = "definition"  # the target of `[label]: target`, used by `[text][label]`
CODE = "code"  # a backticked repository path in prose

MAX_REFS = 5000  # links or code paths kept per document: a generated page stops there
_BRACKET_WINDOW = 1000  # characters looked back for a link's `[` (is it an image?)
_DEFINITION = re.compile(
    r"^ {0,3}\[(?!\^)((?:[^\]\\\n]|\\.){1,999})\]:[ \t]*<?([^\s<>]{1,1024})>?",
    re.MULTILINE,
)
# An HTML comment's opening: the regex engine finds it faster than `in` (2.7 ms against
# 4.2 over the docs corpus' 7.9 MB of bodies, most of which have none)
_COMMENT = re.compile("<!--")
# `](target)`: one scan of a region finds every inline link's target in C.
_INLINE = re.compile(r"\]\(" + LINK_TARGET.pattern)
# A literal first character lets the engine skip to each backtick (a lookbehind first made
# the scan of the docs corpus 5x slower); the characters around a span are checked after.
_CODE_SPAN = re.compile(r"`([^`\n]{1,300})`")
# A repository path as prose writes one: segments of word characters, dots, `@`, `+` and
# `-`, at least one slash, an optional trailing slash.
_PATH_TOKEN = re.compile(r"[\w@+-][\w.@+-]*(?:/[\w.@+-]+)+/?|[\w@+-][\w.@+-]*/")
# What may follow a path without being part of it: `:12`, `:12:3`, `::test_name`, `#anchor`.
_PATH_SUFFIX = re.compile(r"(?::\d+(?::\d+)?|::[\w.\[\]-]+|#[\w.-]*)$")


class LinkRef(NamedTuple):
    """A link target (or a code path) as written, where it stands in the body."""

    kind: str  # LINK, IMAGE, DEFINITION or CODE
    target: str  # as written: `../x.md#part`, `src/tool.py`
    offset: int  # character offset of the target's first character in `Document.body`


def regions(doc: Document) -> Iterator[tuple[int, int]]:
    """The [start, end) ranges of the body outside code blocks and HTML comments."""
    body, start = doc.body, 0
    for block_start, block_end in (*code_blocks(doc), (len(body), len(body))):
        yield from _outside_comments(body, start, block_start)
        start = max(start, block_end)


def region_list(doc: Document) -> list[tuple[int, int]]:
    """`regions` as a list; a body with no code block and no comment (most) is one."""
    body = doc.body
    if _COMMENT.search(body) is None:  # most bodies: only code blocks to step over
        return list(outside_code_blocks(doc))
    return list(regions(doc))


def _outside_comments(body: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end:
        opened = body.find("<!--", start, end)
        if opened < 0:
            yield start, end
            return
        if opened > start:
            yield start, opened
        closed = body.find("-->", opened + 4, end)
        start = end if closed < 0 else closed + 3


def _is_image(body: str, at: int, floor: int) -> bool:
    """Whether the link whose text closes at `at` (its `]`) opens with `![`."""
    low = max(floor, at - _BRACKET_WINDOW)
    opened = body.rfind("[", low, at)
    if opened >= 0 and body.find("]", opened, at) < 0:  # no nested brackets: the common case
        return opened > 0 and body[opened - 1] == "!"
    depth, pos = 0, at - 1
    while pos >= low:
        char = body[pos]
        if char == "]":
            depth += 1
        elif char == "[":
            if depth == 0:
                return pos > 0 and body[pos - 1] == "!"
            depth -= 1
        pos -= 1
    return False


def links(doc: Document, spans: list[tuple[int, int]] | None = None) -> list[LinkRef]:
    """The document's inline links, images and reference definitions, in body order
    (`spans`: its `regions`, when the caller has them already): the first `MAX_REFS`."""
    return scan_links(doc, spans)[0]


def scan_links(
    doc: Document, spans: list[tuple[int, int]] | None = None, cap: int = MAX_REFS
) -> tuple[list[LinkRef], int]:
    """`links` (the first `cap`), and the body offset of the first `](` left unread because
    `MAX_LINK_SCANS` bound (-1: it bound nowhere; definitions are read past it)."""
    body, found, scans, full, stopped = doc.body, list[LinkRef](), 0, False, -1
    # the loop runs once per link of a corpus (12,500 in the docs corpus): names bound here
    append, rfind, find = found.append, body.rfind, body.find
    in_code = CodeSpans(body).inside
    definitions = "]:" in body
    for start, end in regions(doc) if spans is None else spans:
        for match in _INLINE.finditer(body, start, end):
            scans += 1
            if full or scans > MAX_LINK_SCANS:
                if not full and stopped < 0:
                    stopped = match.start()
                break
            at = match.start()
            if in_code(at) or (body[at - 1] == "\\" and escaped(body, at)):
                continue
            # `_is_image`'s common case inline: the nearest `[` opens this link's text
            low = at - _BRACKET_WINDOW if at - _BRACKET_WINDOW > start else start
            opened = rfind("[", low, at)
            if opened >= 0 and find("]", opened, at) < 0:
                image = opened > 0 and body[opened - 1] == "!"
            else:
                image = _is_image(body, at, start)
            append(LinkRef(IMAGE if image else LINK, match[1], match.start(1)))
            full = len(found) >= cap
        if definitions and find("]:", start, end) >= 0:
            found.extend(
                LinkRef(DEFINITION, m[2], m.start(2))
                for m in _DEFINITION.finditer(body, start, end)
            )
            full = len(found) >= cap
    if definitions:  # inline links come in body order; definitions join them here
        found.sort(key=_offset)
    return (found[:cap] if len(found) > cap else found), stopped


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
    (`spans`: its `regions`, when the caller has them already): the first `cap`."""
    body, found = doc.body, list[LinkRef]()
    for start, end in regions(doc) if spans is None else spans:
        if body.find("`", start, end) < 0:
            continue
        for match in _CODE_SPAN.finditer(body, start, end):
            if "/" not in match[1]:
                continue
            before, after = match.start() - 1, match.end()
            if (before >= 0 and body[before] in "`\\") or (after < end and body[after] == "`"):
                continue  # part of a longer backtick run or escaped
            token = path_token(match[1])
            if token is None:
                continue
            lead = len(match[1]) - len(match[1].lstrip())
            found.append(LinkRef(CODE, token, match.start(1) + lead))
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
    if stopped >= 0 and (link := _next_link(doc.body, spans, stopped)) is not None:
        past.append(link)
    return min(past, default=None)


def _next_link(body: str, spans: list[tuple[int, int]], at: int) -> int | None:
    """The target offset of the first inline link from `at` on (outside code spans, not
    escaped): what the scan would have kept next had `MAX_LINK_SCANS` not bound."""
    in_code = CodeSpans(body).inside
    for start, end in spans:
        if end <= at:
            continue
        for match in _INLINE.finditer(body, max(start, at), end):
            pos = match.start()
            if not in_code(pos) and not (body[pos - 1] == "\\" and escaped(body, pos)):
                return match.start(1)
    return None
