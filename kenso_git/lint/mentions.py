"""KS019's label table and a linear-time scanner for mentions of other documents' titles.

All labels go into one trie-shaped regular expression, so each document's text is scanned
once, however many labels there are (kenso searched every body for every label: N^2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kenso_git.text.parse import Document

_SPACE_RUN = re.compile(r"\s+")
_INLINE_CODE = re.compile(r"`[^`\n]+`")


@dataclass(frozen=True, slots=True)
class Mention:
    """A label owned by `owner` found in a document at a 0-based offset of its body."""

    owner: str
    label: str
    offset: int


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, pos: int) -> bool:
    before = pos > 0 and _is_word(text[pos - 1])
    after = pos < len(text) and _is_word(text[pos])
    return before != after


class _Node:
    __slots__ = ("children", "end")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.end = False


def _trie_pattern(labels: Iterable[str]) -> str:
    root = _Node()
    for label in labels:
        node = root
        for char in label:
            node = node.children.setdefault(char, _Node())
        node.end = True
    return _node_pattern(root)


def _node_pattern(node: _Node) -> str:
    branches = [
        re.escape(char) + _node_pattern(child) for char, child in sorted(node.children.items())
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    # An end-of-label node makes the rest optional; greedy, so the longest label is tried first.
    return f"(?:{body})?" if node.end else body


class MentionIndex:
    """Every document's titles and aliases, ready to be searched for in other documents."""

    def __init__(self, docs: Sequence[Document], *, min_chars: int) -> None:
        owners: dict[str, list[tuple[str, str]]] = {}
        for doc in docs:
            labels = [doc.title] if doc.title is not None else []  # never the bare file stem
            labels.extend(doc.aliases)
            for raw in labels:
                label = _SPACE_RUN.sub(" ", str(raw)).strip()
                if len(label) < min_chars:
                    continue
                owners.setdefault(label.lower(), []).append((doc.path, label))
        self._owners = owners
        self._order = {doc.path: i for i, doc in enumerate(docs)}
        self._regex = (
            re.compile(r"\b(?=(" + _trie_pattern(owners) + r")\b)", re.IGNORECASE)
            if owners
            else None
        )

    def find(self, doc: Document, *, exclude: Iterable[str] = ()) -> list[Mention]:
        """First mention of each other document in `doc` (code and headings blanked out)."""
        if self._regex is None:
            return []
        skip = {doc.path, *exclude}
        text = searchable_text(doc)
        first: dict[str, Mention] = {}
        for match in self._regex.finditer(text):
            start, longest = match.start(), match.group(1)
            for length in range(len(longest), 0, -1):
                key = longest[:length].lower()
                if key not in self._owners or not _boundary(text, start + length):
                    continue
                for owner, label in self._owners[key]:
                    if owner not in skip and owner not in first:
                        first[owner] = Mention(owner, label, start)
        return sorted(first.values(), key=lambda m: self._order.get(m.owner, 0))


def searchable_text(doc: Document) -> str:
    """The body with fenced code, inline code and heading lines blanked (offsets kept)."""
    chars = list(doc.body)

    def blank(start: int, end: int) -> None:
        for i in range(start, min(end, len(chars))):
            if chars[i] != "\n":
                chars[i] = " "

    for start, end in doc.fences:
        blank(start, end)
    for heading in doc.headings:
        blank(heading.offset, heading.end)
    text = "".join(chars)
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)
