"""A heading's text as GitHub renders it before taking its slug (`rendered`; pure, linear in
the text): link, image and emphasis markup and HTML tags dropped, code spans, backslash
escapes, entities and autolinks resolved (CommonMark 6). An `_` or `*` is dropped only where
CommonMark's delimiter rules make it emphasis, so `_private`, `MY_PREFIX_` and `\\_` keep
theirs. `text.anchors` slugs what this renders.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata

_ATTRIBUTE_VALUE = r"""(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))"""
_TAG = re.compile(  # CommonMark 6.6's open and closing tags
    rf"<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*{_ATTRIBUTE_VALUE}?)*\s*/?>"
    r"|</[A-Za-z][A-Za-z0-9-]*\s*>|<!---?>"
)
# comments, instructions, CDATA and declarations: (opener, closer), found with `str.find`
_HTML_OTHER = (("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>"), ("<!", ">"))
_LETTER = re.compile("[A-Za-z]")
_AUTOLINK = re.compile(  # CommonMark 6.5's URI and email autolinks: their text is shown
    r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>"
)
_SPECIAL = re.compile(r"[\\`&<!\[*_]")  # where inline markup may start
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")


def rendered(text: str, labels: frozenset[str] | None = None) -> str:
    """A heading's text as rendered: link and emphasis markup and HTML tags dropped, code
    spans, backslash escapes and entities resolved (CommonMark 6). `labels`: the page's
    reference definitions (`[a][b]` with no `[b]:` is text), None to take any as defined."""
    if _SPECIAL.search(text) is None:  # most headings: nothing to render
        return text
    return _Inline(text, labels).render(0, len(text))


def label(text: str) -> str:
    """A link label as matched (CommonMark 4.7: case-folded, inner whitespace collapsed)."""
    return " ".join(text.split()).casefold()


def _escaped(text: str, at: int) -> bool:
    """Whether an odd number of backslashes stands before `text[at]`."""
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


def _is_space(char: str) -> bool:
    if char < "\x80":
        return char in " \t\n\f\r"
    return unicodedata.category(char) == "Zs"


def _is_punctuation(char: str) -> bool:
    if char < "\x80":
        return char in _ASCII_PUNCTUATION
    return unicodedata.category(char)[0] in "PS"  # CommonMark 0.31: punctuation or symbol


class _Run:
    """A run of `*` or `_` that may open or close emphasis (CommonMark 6.2's delimiter)."""

    __slots__ = ("char", "closes", "count", "length", "next", "opens", "piece", "prev", "seq")

    def __init__(self, text: str, start: int, end: int, piece: int, seq: int) -> None:
        self.char, self.piece, self.seq = text[start], piece, seq
        self.length = self.count = end - start
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        left = not _is_space(after) and (
            not _is_punctuation(after) or _is_space(before) or _is_punctuation(before)
        )
        right = not _is_space(before) and (
            not _is_punctuation(before) or _is_space(after) or _is_punctuation(after)
        )
        if self.char == "*":
            self.opens, self.closes = left, right
        else:  # `_` inside a word (`snake_case`) neither opens nor closes
            self.opens = left and (not right or _is_punctuation(before))
            self.closes = right and (not left or _is_punctuation(after))
        self.prev: _Run | None = None
        self.next: _Run | None = None

    def unlink(self) -> None:
        if self.prev is not None:
            self.prev.next = self.next
        if self.next is not None:
            self.next.prev = self.prev


def _match(closer: _Run, bottom: int) -> _Run | None:
    """The nearest run above `bottom` that opens the emphasis `closer` closes, or None."""
    opener = closer.prev
    while opener is not None and opener.seq > bottom:
        if opener.char == closer.char and opener.opens:
            both = opener.closes or closer.opens
            total = opener.length + closer.length
            thirds = opener.length % 3 == 0 and closer.length % 3 == 0
            if not (both and total % 3 == 0 and not thirds):  # the rule of 3
                return opener
        opener = opener.prev
    return None


def _emphasis(first: _Run | None) -> None:
    """Take from each run the delimiters emphasis uses (CommonMark's process emphasis)."""
    bottoms: dict[tuple[str, bool, int], int] = {}
    current = first
    while current is not None:
        if not current.closes:
            current = current.next
            continue
        closer = current
        key = (closer.char, closer.opens, closer.length % 3)
        opener = _match(closer, bottoms.get(key, -1))
        if opener is None:
            bottoms[key] = closer.prev.seq if closer.prev is not None else -1
            current = closer.next
            if not closer.opens:
                closer.unlink()
            continue
        used = 2 if opener.count >= 2 and closer.count >= 2 else 1
        opener.count -= used
        closer.count -= used
        opener.next, closer.prev = closer, opener  # runs between them are text now
        if opener.count == 0:
            opener.unlink()
        if closer.count == 0:
            current = closer.next
            closer.unlink()


class _Inline:
    """One heading's inline content, rendered scope by scope (a link's text is its own)."""

    def __init__(self, text: str, labels: frozenset[str] | None) -> None:
        self.text, self.labels = text, labels
        self.no_closer: dict[tuple[int, int], int] = {}  # (run length, scope end) -> none after
        # (closer, scope end) -> (a place, where the closer first comes after it or -1)
        self.found: dict[tuple[str, int], tuple[int, int]] = {}
        self.seq = 0

    def render(self, start: int, end: int) -> str:
        text, pieces, runs = self.text, list[str](), list[_Run]()
        pos = start
        while (found := _SPECIAL.search(text, pos, end)) is not None:
            at = found.start()
            pieces.append(text[pos:at])
            char = text[at]
            if char in "*_":
                pos = at + 1
                while pos < end and text[pos] == char:
                    pos += 1
                runs.append(_Run(text, at, pos, len(pieces), self.seq))
                self.seq += 1
                pieces.append("")
            else:
                piece, pos = self._other(char, at, end)
                pieces.append(piece)
        pieces.append(text[pos:end])
        for left, right in itertools.pairwise(runs):
            left.next, right.prev = right, left
        _emphasis(runs[0] if runs else None)
        for run in runs:
            pieces[run.piece] = run.char * run.count
        return "".join(pieces)

    def _other(self, char: str, at: int, end: int) -> tuple[str, int]:
        """(what the markup at `at` renders as, where reading goes on)."""
        text = self.text
        if char == "\\":
            if at + 1 < end and text[at + 1] in _ASCII_PUNCTUATION:
                return text[at + 1], at + 2
        elif char == "`":
            return self._code(at, end)
        elif char == "&":
            if (entity := _ENTITY.match(text, at, end)) is not None:
                return html.unescape(entity[0]), entity.end()
        elif char == "<":
            return self._angle(at, end)
        elif char == "!":
            if text.startswith("[", at + 1, end) and (image := self._link(at + 1, end, "(")):
                return "", image[1]
        elif (link := self._link(at, end)) is not None:
            return self.render(at + 1, link[0]), link[1]
        return char, at + 1

    def _angle(self, at: int, end: int) -> tuple[str, int]:
        """An HTML tag, comment, instruction, CDATA section or declaration at `at` (shown as
        nothing), an autolink (its text), or a literal `<`."""
        text = self.text
        if (tag := _TAG.match(text, at, end)) is not None:
            return "", tag.end()
        for opener, closer in _HTML_OTHER:
            if text.startswith(opener, at, end):
                opened = at + len(opener)
                if opener == "<!" and not _LETTER.match(text, opened, end):
                    break
                found = self._next(closer, opened, end)
                if found >= 0:
                    return "", found + len(closer)
                break
        if (autolink := _AUTOLINK.match(text, at, end)) is not None:
            return autolink[1], autolink.end()
        return "<", at + 1

    def _link(self, at: int, end: int, tails: str = "([") -> tuple[int, int] | None:
        """(where the text of the link at `at` ends, where the link ends), or None:
        `[text](...)` or `[text][...]` (an image: `tails` is `(`)."""
        close = self._next("]", at + 1, end)
        if close < 0 or close + 1 >= end:
            return None
        after = self.text[close + 1]
        if after not in tails:
            return None
        tail = self._next(")" if after == "(" else "][", close + 2, end)
        if tail < 0:
            return None
        if after == "[" and self.labels is not None:  # a full or collapsed reference
            named = self.text[close + 2 : tail].strip() or self.text[at + 1 : close]
            if label(named) not in self.labels:
                return None
        return close, tail + 1

    def _next(self, closer: str, start: int, end: int) -> int:
        """`text.find(closer, start, end)`, a `]` or `)` escaped by a backslash skipped,
        each stretch read once: openers left without a closer (a heading of `<?` or `[`)
        each read to the heading's end took quadratic time. A reference link's `]` is
        asked for as `][`: kept apart from its text's `]`."""
        searched, found = self.found.get((closer, end), (end + 1, -1))
        if not (searched <= start and (found < 0 or start <= found)):
            text, char = self.text, "]" if closer == "][" else closer
            found = text.find(char, start, end)
            while found > 0 and char in ("]", ")") and _escaped(text, found):
                found = text.find(char, found + 1, end)
            self.found[closer, end] = (start, found)
        return found

    def _code(self, at: int, end: int) -> tuple[str, int]:
        """A code span's content, or its opening backticks as text when none closes it."""
        text = self.text
        opened = at
        while opened < end and text[opened] == "`":
            opened += 1
        size = opened - at
        if self.no_closer.get((size, end), end) <= opened:
            return text[at:opened], opened
        closer = re.compile(f"(?<!`)`{{{size}}}(?!`)").search(text, opened, end)
        if closer is None:
            self.no_closer[size, end] = opened
            return text[at:opened], opened
        content = text[opened : closer.start()]
        if len(content) > 2 and content[0] == content[-1] == " " and content.strip(" "):
            content = content[1:-1]
        return content, closer.end()
