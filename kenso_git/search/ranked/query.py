"""Turn query text into the ordered FTS5 stages of the keyword cascade (spec §4.2).

Differences from kenso 2.0.0 (spec §8.9): a compound word never demands its fused token in
the AND and NEAR stages (`pre-commit` is `("precommit" OR "pre commit")` there, and the
phrase in NEAR), punctuation-only tokens are dropped instead of becoming empty phrases, and
the prefix stage runs whenever exactly one plain term survives; a word whose FTS5 special
characters joined tokens (`16:9`, `localhost:8080`, `e-mail`) is also those tokens, as a
phrase (kenso asks for the fused `169`, which no page holds).

The fuzzy (typo) fallback of spec §4.7 is `search.fuzzy`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kenso_git.errors import QueryError
from kenso_git.records import NamedTuple
from kenso_git.search.ranked.synonyms import Synonyms
from kenso_git.text.terms import expand_word
from kenso_git.text.titlewords import clean

_STOP_WORDS_TEXT = """
a an the is are was were be been being have has had do does did will would could should can may
might shall how what when where which who why it i my we our you your they their this that these
those in on at to for of with from by about and or not but if so
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())  # spec App. A5
_TOKEN = re.compile(r"[^\W_]+")
NEAR_DISTANCE = 10
PREFIX_MIN_CHARS = 3

AND = "AND"
NEAR = "NEAR"
OR = "OR"

# The FTS5 stages cost grows with the square of the query (160 KB took 6-17 s); agents'
# queries are a few words, so these caps cost nothing real and bound every search call.
MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 64


def check_query(query: str) -> None:
    """Refuse a query over the character cap or holding a NUL byte, with the cap in the
    message (a question of more words than `MAX_QUERY_TERMS` is `bounded`, not refused).

    Raises:
        QueryError: the query is longer than `MAX_QUERY_CHARS` or contains a NUL byte.
    """
    if len(query) > MAX_QUERY_CHARS:
        reply = f"Query too long: {len(query)} characters (the cap is {MAX_QUERY_CHARS})."
        raise QueryError(reply, reply=reply, hint="search for a few distinctive words")
    if "\x00" in query:
        reply = "Query contains a NUL byte: remove it."
        raise QueryError(reply, reply=reply, hint="search for plain words")


def bounded(query: str) -> str:
    """`query` as the cascade searches it: at most `MAX_QUERY_TERMS` words.

    A longer question (a pasted paragraph, a page's whole description: #31's fourth held-out
    set asked 119 of 360 such) is searched by its first `MAX_QUERY_TERMS` words that are
    neither stop words nor repeats, in their order: the words the stages read anyway
    (`content_words`), so no search costs more than one at the cap. Refusing it answered
    nothing where kenso 2.0.0 answers.
    """
    said = query.split()
    if len(said) <= MAX_QUERY_TERMS:
        return query
    kept = first_content_words(said, MAX_QUERY_TERMS)
    return " ".join([said[i] for i in kept] or said[:MAX_QUERY_TERMS])


def first_content_words(words: Sequence[str], room: int) -> list[int]:
    """The indices of the first `room` of `words` that are neither stop words nor repeats
    (case-insensitive, punctuation aside), in order: the words a question over the word
    cap is read by, here and in the `search` tool's language (`search.lang.longquery`)."""
    kept: list[int] = []
    seen: set[str] = set()
    for i, word in enumerate(words):
        if len(kept) >= room:
            break
        key = clean(word).lower()
        if has_token(key) and key not in STOP_WORDS and key not in seen:
            seen.add(key)
            kept.append(i)
    return kept


class Stage(NamedTuple):
    """One FTS5 MATCH expression and the cascade label its hits carry."""

    expression: str
    label: str


class _Item(NamedTuple):
    """A query term (`word` plus compound `parts`) or a synonym group (`variants`)."""

    word: str = ""
    parts: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()

    @property
    def is_group(self) -> bool:
        return bool(self.variants)

    def and_form(self) -> str:
        if self.is_group:
            quoted = [_quote(v) for v in self.variants]
            return quoted[0] if len(quoted) == 1 else f"({' OR '.join(quoted)})"
        if self.parts:
            phrase = _quote(" ".join(self.parts))
            if _TOKEN.findall(self.word.lower()) == [p.lower() for p in self.parts]:
                return phrase  # the tokenizer already splits the word into these parts
            return f"({_quote(self.word)} OR {phrase})"
        return _quote(self.word)

    def near_form(self) -> str:
        if self.is_group:
            return _quote(self.variants[0])
        return _quote(" ".join(self.parts) if self.parts else self.word)

    def or_terms(self) -> list[str]:
        if self.is_group:
            return [_quote(v) for v in self.variants]
        return [_quote(self.word), *(_quote(p) for p in self.parts)]


def has_token(text: str) -> bool:
    """True when `text` has at least one character the FTS5 tokenizer keeps."""
    return any(ch.isalnum() for ch in text)


def _quote(text: str) -> str:
    return f'"{text}"'


def content_words(query: str) -> list[str]:
    """Whitespace words of `query` without punctuation-only tokens and stop words.

    When every remaining word is a stop word, they are all kept.
    """
    words = [w for w in query.split() if has_token(clean(w))]
    kept = [w for w in words if w.lower() not in STOP_WORDS]
    return kept or words


def _term_item(word: str) -> _Item | None:
    cleaned = [clean(e) for e in expand_word(word)]
    head = cleaned[0]
    if not has_token(head):
        return None
    parts = joined_tokens(word) or tuple(p for p in cleaned[1:] if has_token(p))
    return _Item(word=head, parts=parts if len(parts) >= 2 else ())


def joined_tokens(word: str) -> tuple[str, ...]:
    """The tokens of `word`, lowercased, when deleting its FTS5 special characters fuses
    some (`16:9` is 16 and 9 to the tokenizer, never "169": the word is also those
    tokens); else ()."""
    tokens = _TOKEN.findall(word.lower())
    return tuple(tokens) if len(tokens) > len(_TOKEN.findall(clean(word))) else ()


def _group_item(group: tuple[str, ...]) -> _Item | None:
    variants = tuple(dict.fromkeys(c for c in (clean(v) for v in group) if has_token(c)))
    return _Item(variants=variants) if variants else None


def _items(words: list[str], synonyms: Synonyms | None) -> list[_Item]:
    items: list[_Item] = []
    i = 0
    while i < len(words):
        found = synonyms.match(words, i) if synonyms is not None else None
        item: _Item | None
        if found is not None:
            group, consumed = found
            item = _group_item(group)
            i += consumed
        else:
            item = _term_item(words[i])
            i += 1
        if item is not None:
            items.append(item)
    return items


def build_stages(query: str, synonyms: Synonyms | None = None) -> list[Stage]:
    """The cascade stages for `query`, in the order they run."""
    items = _items(content_words(query.strip()), synonyms)
    if not items:
        return [Stage('""', AND)]
    if len(items) == 1:
        only = items[0]
        if only.is_group:
            return [Stage(" OR ".join(only.or_terms()), OR)]
        if not only.parts:
            stages = [Stage(_quote(only.word), AND)]
            if len(only.word) >= PREFIX_MIN_CHARS:
                stages.append(Stage(f"{_quote(only.word)}*", AND))
            return stages
    stages = [Stage(" AND ".join(item.and_form() for item in items), AND)]
    if 2 <= len(items) <= 4:
        near = " ".join(item.near_form() for item in items)
        stages.append(Stage(f"NEAR({near}, {NEAR_DISTANCE})", NEAR))
    or_terms = dict.fromkeys(t for item in items for t in item.or_terms())
    stages.append(Stage(" OR ".join(or_terms), OR))
    return stages
