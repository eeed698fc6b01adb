"""Compound-word expansion shared by the query builder and the indexed content.

`expand_word("pre-commit")` gives `["pre-commit", "pre", "commit"]`, so a query and the
`Expanded terms:` line of a chunk agree on how `snake_case`, `CI/CD`, `node.js`,
`kebab-case` and `camelCase` words break into parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# Where camelCase words break: lower -> Upper, and before the last capital of an acronym
# that starts a word (HTTPServer -> HTTP Server). One zero-width split, no replacement
# templates: this runs for every distinct compound token of a corpus.
_CAMEL_BREAK = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]")
_STRIP = ".,;:!?()[]{}\"'`"

# Regular expressions cost ~1,000 instructions a call before they look at a character:
# the checks below use str methods first and call one only when it can match.


def _no_camel_step(word: str) -> bool:
    """True when `word` cannot break as camelCase: no capital after its first character,
    or no lowercase letter at all (each break needs an ASCII capital after the first
    character and, in either rule, an ASCII lowercase letter)."""
    return word[1:].islower() or word.isupper()


def _numeric(word: str) -> bool:
    """`\\d[\\d.]*`: a decimal digit, then digits and dots (a version, not a compound)."""
    return word[:1].isdecimal() and word.replace(".", "").isdecimal()


def _lowered(parts: list[str]) -> tuple[str, ...]:
    return tuple(map(str.lower, parts)) if len(parts) >= 2 else ()


def _parts(word: str) -> list[str]:
    """The parts of `word` by the first applicable rule of spec §4.3, or []."""
    if _numeric(word):
        return []
    for sep in "_/.":
        if sep in word:
            parts = [part for part in word.split(sep) if part]
            if len(parts) >= 2:
                return parts
    if "-" in word and len(word) >= 4:
        parts = [part for part in word.split("-") if part]
        if len(parts) >= 2 and all(len(part) >= 2 for part in parts):
            return parts
    return _camel_parts(word)


def _camel_parts(word: str) -> list[str]:
    """The camelCase parts of `word` (at least two), or []."""
    if _no_camel_step(word):
        return []
    parts = _CAMEL_BREAK.split(word)
    return parts if len(parts) >= 2 else []


def expand_word(word: str) -> list[str]:
    """`[word, part1, part2, ...]` (parts lowercased) for a compound word, else `[word]`."""
    return [word, *(part.lower() for part in _parts(word))]


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


@lru_cache(maxsize=1024)  # larger costs worker memory (16384: +3.5 MB of peak RSS) for ~5%
def _token_parts(raw: str) -> tuple[str, ...]:
    """Lowercased parts of one raw content token, when it is a compound candidate (spec
    §3.7: `_` or `/`, a camelCase step, or a `-`/`.` between letters). Cached: tokens
    repeat across chunks."""
    token = raw.strip(_STRIP)
    if token.isalnum():  # no separator: only a camelCase split can apply
        return _lowered(_camel_parts(token))
    if not token:
        return ()
    candidate = (
        "_" in token
        or "/" in token
        or _has_letter_join(token)
        or not (_no_camel_step(token) or _CAMEL_HINT.search(token) is None)
    )
    return _lowered(_parts(token)) if candidate else ()


def python_content_expansion(text: str) -> list[str]:
    """Parts of the compound tokens of `text`, lowercased, deduplicated in first-seen order.

    The reference for `kenso_git.text._expand.content_expansion`, the compiled version that
    `content_expansion` is when the package was built with a C compiler (a test holds the
    two equal); a cold ingest spends most of its parsing time here otherwise."""
    seen: set[str] = set()
    out: list[str] = []
    # dict.fromkeys de-duplicates in C and keeps first-seen order: each distinct token is
    # examined once, and plain lowercase words are passed over without a regex.
    for raw in dict.fromkeys(text.split()):
        # Most words cannot be compound (one case, or capitalised, no separator): this line
        # runs for every distinct word of every chunk, so it is written out, not called.
        if raw.isalnum() and (raw.islower() or raw.isupper() or raw[1:].islower() or raw.isdigit()):
            continue
        for lowered in _token_parts(raw):
            if lowered not in seen:
                seen.add(lowered)
                out.append(lowered)
    return out


def _compiled_expansion() -> Callable[[str], list[str]]:
    try:
        from kenso_git.text._expand import content_expansion as compiled
    except ImportError:  # built where no C compiler was available: the same, slower
        return python_content_expansion
    return compiled


content_expansion = _compiled_expansion()

EXPANDED_LABEL = "Expanded terms: "


def expanded_line(content: str) -> str | None:
    """The `Expanded terms:` line the index adds to a chunk's searchable text (spec §3.7,
    item 8), or None when no token of `content` is a compound.

    Stored nowhere: the index's triggers compute it from the stored content (the SQL
    function `kenso_terms`) and the parsing workers for the bulk path, so both must give
    the same line for the same content, in every version (see store/schema.py)."""
    parts = content_expansion(content)
    return EXPANDED_LABEL + " ".join(parts) if parts else None
