"""The anchor a dead `#fragment` was meant to name (KS023's suggestion and fix), and the
name of its folder a missing code path misspells (KS025's, `TreeIndex.near`), found in
bounded work: each typo may compare at most `PER_TYPO` characters (`_cost`: about
`COMPARE_ALL` comparisons of 64-character words), however many headings its page makes or
names its folder holds, so a document's suggestions cost work linear in its typos.

A page's anchors are sorted and indexed once (`anchor_index`, kept across documents and
lint runs while the page's anchors are the same set). A page of at most `COMPARE_ALL`
anchors is compared whole, as `difflib.get_close_matches` would: the suggestion is the
closest anchor sharing the fragment's first 3 characters, and `lint --fix` takes it when no
other anchor of the page is close. On a larger page (or one whose anchors are too long to
compare whole within `PER_TYPO`) only the anchors a typo most likely misspells are compared
(`_nearby`: beside the fragment in sort order, forwards and backwards, and the fragment less
its last characters). That cannot prove an anchor the only close one, so `lint --fix` takes
the suggestion there only by a margin it can prove: no other compared anchor is close, and
the suggestion is the page's only anchor one edit from the fragment (a character added,
dropped, replaced, or two swapped; `_one_edit` looks every such string up), so every other
anchor is at least two edits away. A document repeating a dead fragment pays for it once.

A folder's names are indexed the same way (`word_index`, kept by the tree), and `closest`
is `difflib.get_close_matches(word, names, n=1)` on a folder of at most `COMPARE_ALL`
names; on a larger one, the closest of those `_nearby` picks and of those the word less one
character is (`_shorter`: a name's typo sits before its extension, where `_nearby` looks
least).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from functools import lru_cache

CLOSE_ANCHOR = 0.75  # difflib ratio of a dead anchor to one its page makes: a typo
COMPARE_ALL = 200  # a page of at most this many anchors (folder: names) is compared whole
NEAREST = 16  # on a larger page, the anchors beside a dead fragment in sort order
PER_TYPO = COMPARE_ALL * 64 * 64  # one typo's comparisons, in characters (see `_cost`)
_LEAST = 256  # what a comparison costs at least (16 x 16 characters)
_LONGEST = 255  # a name whose one-character-shorter forms are looked up (a file name's most)
_ALPHABET = 64  # the most characters a page's anchors use for `_one_edit` to look up all


@dataclass(frozen=True, slots=True)
class WordIndex:
    """One page's anchors (or one folder's names): sorted, by case-folded text, and by their
    first 3 characters (sorted, and sorted read backwards: their text reversed)."""

    words: frozenset[str]
    ordered: tuple[str, ...]
    by_fold: dict[str, tuple[str, ...]]
    by_prefix: dict[str, tuple[str, ...]]
    by_prefix_reversed: dict[str, tuple[str, ...]]
    alphabet: str  # every character the words use, sorted


@lru_cache(maxsize=64)
def anchor_index(anchors: frozenset[str]) -> WordIndex:
    """The index of a page's `anchors` (cached: a page's set is one object per lint run)."""
    return word_index(anchors)


def word_index(words: Iterable[str]) -> WordIndex:
    """The index of `words` (a page's anchors, a folder's names)."""
    unique = frozenset(words)
    ordered = tuple(sorted(unique))
    by_prefix: dict[str, list[str]] = {}
    by_fold: dict[str, list[str]] = {}
    for anchor in ordered:
        by_prefix.setdefault(anchor[:3], []).append(anchor)
        by_fold.setdefault(anchor.casefold(), []).append(anchor)
    return WordIndex(
        unique,
        ordered,
        {k: tuple(v) for k, v in by_fold.items()},
        {k: tuple(v) for k, v in by_prefix.items()},
        {k: tuple(sorted(a[::-1] for a in v)) for k, v in by_prefix.items()},
        "".join(sorted({c for word in unique for c in word})),
    )


def _beside(ordered: tuple[str, ...], key: str) -> tuple[str, ...]:
    """The `NEAREST` strings of `ordered` (sorted) around where `key` would stand."""
    at = bisect_left(ordered, key)
    start = max(0, min(at - NEAREST // 2, len(ordered) - NEAREST))
    return ordered[start : start + NEAREST]


def _nearby(fragment: str, index: WordIndex) -> list[str]:
    """The words of a large index a typo of `fragment` most likely misspells: those
    sharing its first 3 characters and beside it in sort order (a typo near the end),
    or read backwards (near the start), and those it adds up to 3 characters to."""
    head = fragment[:3]
    found = dict.fromkeys(_beside(index.by_prefix.get(head, ()), fragment))
    backwards = _beside(index.by_prefix_reversed.get(head, ()), fragment[::-1])
    found.update((a[::-1], None) for a in backwards)
    for cut in range(1, 4):
        stem = fragment[:-cut]
        if len(stem) >= 3 and stem in index.words:
            found[stem] = None
    return list(found)


def _shorter(word: str, index: WordIndex) -> list[str]:
    """The words of `index` that `word` less one character is (a typed extra character
    anywhere, `a_10x.py` for `a_10.py`: found by lookup, without comparing)."""
    if len(word) > _LONGEST:
        return []
    return [
        w
        for w in dict.fromkeys(word[:i] + word[i + 1 :] for i in range(len(word)))
        if w in index.words
    ]


def _one_edit(word: str, index: WordIndex) -> list[str] | None:
    """The words of `index` one edit from `word` (a character added, dropped, replaced, or
    two beside each other swapped), all of them, found by lookup; None when `word` is longer
    than `_LONGEST` or the words use more than `_ALPHABET` characters (too many lookups)."""
    if len(word) > _LONGEST or len(index.alphabet) > _ALPHABET:
        return None
    words = index.words
    found: dict[str, None] = {}
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        edits = [head + c + tail for c in index.alphabet]  # added
        if tail:
            edits.append(head + tail[1:])  # dropped
            edits.extend(head + c + tail[1:] for c in index.alphabet if c != tail[0])
        if len(tail) > 1:
            edits.append(head + tail[1] + tail[0] + tail[2:])  # swapped
        found.update((e, None) for e in edits if e in words and e != word)
    return list(found)


@dataclass(frozen=True, slots=True)
class Guess:
    """The anchor suggested for a dead fragment, and whether `lint --fix` may take it."""

    anchor: str
    fixable: bool


@dataclass(slots=True)
class Guesser:
    """Suggestions for one document's typos, each within `PER_TYPO`."""

    _matcher: difflib.SequenceMatcher[str] = field(default_factory=difflib.SequenceMatcher)
    _guessed: dict[tuple[frozenset[str], str], Guess | None] = field(default_factory=dict)

    def guess(self, fragment: str, index: WordIndex) -> Guess | None:
        """The anchor of the page `index` closest to `fragment` among those sharing its
        first 3 characters (ties: the greater, as `get_close_matches`), if close enough."""
        key = (index.words, fragment)
        if key not in self._guessed:
            self._guessed[key] = self._guess(fragment, index)
        return self._guessed[key]

    def _guess(self, fragment: str, index: WordIndex) -> Guess | None:
        if len(index.ordered) <= COMPARE_ALL:
            scores = self._scores(fragment, index.ordered)
            if scores is not None:
                close = [(score, a) for a, score in scores.items()]
                best = max(((s, a) for s, a in close if a[:3] == fragment[:3]), default=None)
                return None if best is None else Guess(best[1], len(close) == 1)
        scores = self._scores(fragment, _nearby(fragment, index))
        if not scores:
            return None
        anchor = max((s, a) for a, s in scores.items())[1]
        return Guess(anchor, len(scores) == 1 and _one_edit(fragment, index) == [anchor])

    def closest(self, word: str, index: WordIndex, cutoff: float) -> str | None:
        """The word of `index` closest to `word` (difflib ratio at least `cutoff`; ties: the
        greater), as `difflib.get_close_matches(word, words, n=1, cutoff=cutoff)` finds it
        when `index` holds at most `COMPARE_ALL` words (and they fit in `PER_TYPO`)."""
        scores = None
        if len(index.ordered) <= COMPARE_ALL:
            scores = self._scores(word, index.ordered, cutoff)
        if scores is None:
            likely = dict.fromkeys([*_nearby(word, index), *_shorter(word, index)])
            scores = self._scores(word, likely, cutoff)
        if not scores:
            return None
        return max((s, w) for w, s in scores.items())[1]

    def _scores(
        self, fragment: str, anchors: Iterable[str], cutoff: float = CLOSE_ANCHOR
    ) -> dict[str, float] | None:
        """The anchors of `anchors` whose ratio to `fragment` is at least `cutoff`, with
        their ratio; None when `PER_TYPO` does not cover comparing them all."""
        matcher = self._matcher
        matcher.set_seq2(fragment)
        found: dict[str, float] = {}
        left = PER_TYPO
        for anchor in anchors:
            if _bound(len(fragment), len(anchor)) < cutoff:
                continue  # difflib's real_quick_ratio: the lengths alone rule it out
            left -= _cost(fragment, anchor)
            if left < 0:
                return None
            matcher.set_seq1(anchor)
            if matcher.quick_ratio() >= cutoff:
                ratio = matcher.ratio()
                if ratio >= cutoff:
                    found[anchor] = ratio
        return found


def _bound(la: int, lb: int) -> float:
    """The highest ratio two strings of these lengths can have (difflib's formula)."""
    return 2.0 * min(la, lb) / (la + lb) if la + lb else 1.0


def _cost(fragment: str, anchor: str) -> int:
    """What comparing two strings may cost: difflib's longest-match search is at worst the
    product of their lengths."""
    return max(len(fragment) * len(anchor), _LEAST)
