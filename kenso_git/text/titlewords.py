"""The words a document lends the typo correction: those of its headings, title, category
and tags (lower case, FTS5's special characters deleted, two characters or more).

Computed once when a document is written (`store.docwords`) and again, from the chunks,
for documents an older writer left without them (`search.fuzzy`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

FTS_SPECIAL = str.maketrans("", "", '"*()-+^:')
_FTS_SPECIAL_BYTES = b'"*()-+^:'


def clean(term: str) -> str:
    """`term` with the FTS5 special characters deleted (spec App. A7)."""
    if term.isascii():  # bytes.translate deletes in C; str.translate looks up every char
        return term.encode().translate(None, _FTS_SPECIAL_BYTES).decode()
    return term.translate(FTS_SPECIAL)


MIN_WORD_CHARS = 2  # shorter words are never typo candidates


def _text_words(text: str) -> list[str]:
    """The words of a heading, title or category, as the vocabulary keeps them."""
    return clean(text.lower()).split()


def _tag_words(tags: Iterable[object]) -> Iterable[str]:
    return (w for tag in tags for w in str(tag).lower().split())


class WordSplitter:
    """Splits texts into words, each text once (headings, categories and tag lists repeat
    across a repository) and each word one shared string."""

    __slots__ = ("_shared", "_tags", "_texts")

    def __init__(self) -> None:
        self._texts: dict[str, tuple[str, ...]] = {}
        self._tags: dict[str, tuple[str, ...]] = {}
        self._shared: dict[str, str] = {}

    def text(self, text: str) -> tuple[str, ...]:
        """The words of a heading, title or category."""
        found = self._texts.get(text)
        if found is None:
            found = self._texts[text] = self._words(_text_words(text))
        return found

    def tags_json(self, tags: str) -> tuple[str, ...]:
        """The words of a tags column (a JSON list; anything else has none)."""
        found = self._tags.get(tags)
        if found is None:
            try:
                decoded = json.loads(tags)
            except ValueError:
                decoded = []
            listed = decoded if isinstance(decoded, list) else []
            found = self._tags[tags] = self.tags(listed)
        return found

    def tags(self, tags: Iterable[object]) -> tuple[str, ...]:
        """The words of a document's tags."""
        return self._words(_tag_words(tags))

    def stored(self, words: str) -> tuple[str, ...]:
        """Words as `document_words` made and `store.docwords` keeps them (space-separated)."""
        parts = words.split()
        return tuple(map(self._shared.setdefault, parts, parts))

    def _words(self, words: Iterable[str]) -> tuple[str, ...]:
        shared = self._shared
        return tuple(shared.setdefault(w, w) for w in words if len(w) >= MIN_WORD_CHARS)


def document_words(
    titles: Iterable[str | None], category: str | None, tags: Iterable[object]
) -> tuple[str, ...]:
    """A document's words, sorted and distinct: `titles` are its chunks' titles and
    document titles."""
    # WordSplitter's words, each text once, and filtered once (every chunk of a document
    # was split anew: 47 -> 25 ms of the parse workers' time on the docs corpus)
    found: set[str] = set()
    for text in {*titles, category}:
        if text:
            found.update(_text_words(text))
    found.update(_tag_words(tags))
    return tuple(sorted(word for word in found if len(word) >= MIN_WORD_CHARS))
