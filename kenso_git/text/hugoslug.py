"""The heading ids Hugo's Goldmark renders under `markup.goldmark.parser.autoHeadingIDType`
(pure; linear in the number and length of the headings), the type a Hugo config sets, and
whether a page calls a shortcode that may make headings lint cannot read.

`github` (Hugo's default) is GitHub's slug (`text.anchors.slug`). `github-ascii` is the same
after accents are taken off (NFD, combining marks dropped) and every other non-ASCII
character dropped. `blackfriday` keeps letters and numbers only, lower-cased, and makes each
run of anything else between two of them one `-`: "What's new?" is `what-s-new`, "1.0.0"
is `1-0-0`. Hugo numbers a taken id `-1`, `-2` (never one already taken, `{#id}`s
included) and calls an empty one `heading`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

BLACKFRIDAY = "blackfriday"
GITHUB_ASCII = "github-ascii"
HUGO_ID_TYPES = (BLACKFRIDAY, GITHUB_ASCII)  # the types whose ids are not GitHub's
# `autoHeadingIDType = "x"` (TOML, a dotted key too), `autoHeadingIDType: x` (YAML),
# `"autoHeadingIDType": "x"` (JSON): the key names one setting of Hugo's only, and is
# read case-blind as Hugo reads its keys; a commented line (`#`) is no setting.
_SETTING = re.compile(
    r"(?:^|[{,])[ \t]*[\"']?(?:[\w.]+\.)?autoHeadingIDType[\"']?[ \t]*[=:][ \t]*"
    r"[\"']?([A-Za-z-]+)",
    re.IGNORECASE | re.MULTILINE,
)
# a shortcode call opening a line (outside code) whose name says it pulls in content from
# elsewhere (`markdown_inline`, `readfile`, `include`, `remote-md`...): its headings are
# made at build time, where lint cannot see them
_PULLING_SHORTCODE = re.compile(
    r"^[ ]{0,3}\{\{[<%][ \t]*(?!/)[\w./-]*?(?:markdown|read[-_]?file|include|import|embed|remote)",
    re.IGNORECASE | re.MULTILINE,
)
_NOT_ASCII_WORD = re.compile(r"[^a-z0-9_ -]")


def id_type(config: str) -> str | None:
    """The `autoHeadingIDType` a Hugo config's text sets, lower-cased (None: not set)."""
    found = _SETTING.search(config)
    return None if found is None else found[1].lower()


def pulls_content(body: str, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether a shortcode that may pull in headings opens a line of `body` in one of
    `spans` (the body's text outside code: `text.mdlinks.region_list`)."""
    for start, end in spans:
        if body.find("{{", start, end) >= 0 and _PULLING_SHORTCODE.search(body, start, end):
            return True
    return False


def blackfriday_slug(text: str) -> str:
    """Blackfriday's `SanitizedAnchorName` of a heading's rendered text."""
    out: list[str] = []
    dash = False
    for char in text:
        if char.isalpha() or unicodedata.category(char)[0] == "N":
            if dash and out:
                out.append("-")
            dash = False
            out.append(char.lower())
        else:
            dash = True
    return "".join(out)


def github_ascii_slug(text: str) -> str:
    """Hugo's `github-ascii` slug of a heading's rendered text."""
    text = text.strip()  # before non-ASCII is dropped: "x ⚠️" is `x-`
    if not text.isascii():
        folded = unicodedata.normalize("NFD", text)
        text = "".join(c for c in folded if c.isascii())
    return _NOT_ASCII_WORD.sub("", text.lower()).replace(" ", "-")


class HugoIds:
    """Hugo's unique heading ids: `x`, `x-1`, `x-2`, never one already taken. The next
    number to try is kept per id, so many like headings are not quadratic."""

    __slots__ = ("_next", "taken")

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self.taken = set(taken)
        self._next: dict[str, int] = {}

    def take(self, base: str) -> str:
        """The id of a heading whose slug is `base`, now taken."""
        base = base or "heading"
        found = base
        if found in self.taken:
            number = self._next.get(base, 1)
            while f"{base}-{number}" in self.taken:
                number += 1
            self._next[base] = number + 1
            found = f"{base}-{number}"
        self.taken.add(found)
        return found


def hugo_ids(kind: str, headings: Iterable[tuple[str | None, str]]) -> set[str]:
    """The ids Hugo's `kind` of `autoHeadingIDType` gives the headings, each an (`{#id}`
    or None, rendered text) pair in body order (the `{#id}`s are taken first)."""
    pairs = list(headings)
    make = blackfriday_slug if kind == BLACKFRIDAY else github_ascii_slug
    ids = HugoIds(attribute for attribute, _text in pairs if attribute is not None)
    return {ids.take(make(text)) for attribute, text in pairs if attribute is None}
