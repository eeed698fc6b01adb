"""Compound-word expansion shared by the query builder and the indexed content.

`expand_word("pre-commit")` gives `["pre-commit", "pre", "commit"]`, so a query and the
`Expanded terms:` line of a chunk agree on how `snake_case`, `CI/CD`, `node.js`,
`kebab-case` and `camelCase` words break into parts.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NUMERIC = re.compile(r"\d[\d.]*")
# Where camelCase words break: lower -> Upper, and before the last capital of an acronym
# that starts a word (HTTPServer -> HTTP Server). One zero-width split, no replacement
# templates: this runs for every distinct compound token of a corpus.
_CAMEL_BREAK = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]")
_STRIP = ".,;:!?()[]{}\"'`"


def _split(word: str, sep: str) -> list[str]:
    return list(filter(None, word.split(sep)))


def _camel_parts(word: str) -> list[str]:
    return _CAMEL_BREAK.split(word)


def _parts(word: str) -> list[str]:
    """The parts of `word` by the first applicable rule of spec §4.3, or []."""
    if _NUMERIC.fullmatch(word):
        return []
    for sep in ("_", "/", "."):
        if sep in word:
            parts = _split(word, sep)
            if len(parts) >= 2:
                return parts
    if "-" in word and len(word) >= 4:
        parts = _split(word, "-")
        if len(parts) >= 2 and all(len(part) >= 2 for part in parts):
            return parts
    parts = _camel_parts(word)
    return parts if len(parts) >= 2 else []


def expand_word(word: str) -> list[str]:
    """`[word, part1, part2, ...]` (parts lowercased) for a compound word, else `[word]`."""
    return [word, *(part.lower() for part in _parts(word))]


def _is_compound_candidate(token: str) -> bool:
    return (
        "_" in token
        or "/" in token
        or _CAMEL_HINT.search(token) is not None
        or _has_letter_join(token)
    )


def _has_letter_join(token: str) -> bool:
    """A `-` or `.` with a letter on both sides (`e-mail`, `node.js`). Not a regex: the
    Unicode letter class costs ~10 ms to compile in every process that indexes."""
    for mark in "-.":
        index = token.find(mark, 1)
        while 0 < index < len(token) - 1:
            if token[index - 1].isalpha() and token[index + 1].isalpha():
                return True
            index = token.find(mark, index + 1)
    return False


def _cannot_be_compound(token: str) -> bool:
    """Cheap certainty for most words: letters and digits only (no `_ / - .` to split on),
    and no lower-to-upper step for a camelCase split (all one case, or only the first
    letter upper, or no letters at all)."""
    return token.isalnum() and (
        token.islower() or token.isupper() or token[1:].islower() or token.isdigit()
    )


@lru_cache(maxsize=1024)  # larger costs worker memory (16384: +3.5 MB of peak RSS) for ~5%
def _token_parts(raw: str) -> tuple[str, ...]:
    """Lowercased parts of one raw content token (cached: tokens repeat across chunks)."""
    token = raw.strip(_STRIP)
    if not token or _cannot_be_compound(token) or not _is_compound_candidate(token):
        return ()
    return tuple(map(str.lower, _parts(token)))


def content_expansion(text: str) -> list[str]:
    """Parts of the compound tokens of `text`, lowercased, deduplicated in first-seen order."""
    seen: set[str] = set()
    out: list[str] = []
    # dict.fromkeys de-duplicates in C and keeps first-seen order: each distinct token is
    # examined once, and plain lowercase words are passed over without a regex.
    for raw in dict.fromkeys(text.split()):
        # _cannot_be_compound inlined: this line runs for every distinct word of every chunk
        if raw.isalnum() and (raw.islower() or raw.isupper() or raw[1:].islower() or raw.isdigit()):
            continue
        for lowered in _token_parts(raw):
            if lowered not in seen:
                seen.add(lowered)
                out.append(lowered)
    return out
