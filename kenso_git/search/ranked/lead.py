"""Signal `lead` (#31, thirteenth round): the question's words standing together in the
page's lead.

A page's description says what its first paragraphs say, in other words but often with the
same pairs of words close together ("configure mutual TLS between services"), while a page
that only mentions the same words somewhere holds them apart. For each candidate this is
the share of the question's pairs of consecutive content words (stop words dropped, each
word lightly stemmed, a word repeated next to itself skipped) that occur within `WINDOW`
words of each other, in either order, among the first `LEAD_WORDS` words of the page's
first chunk. A question of one content word has no pair, and the signal says nothing.

Measured on #31's tuning half before it was built (benchmarks/relevance-results.md,
thirteenth round): the lead of the first chunk gained more than the lead of each matched
chunk or than every matched chunk's whole text, both of which cost Hugo's and
OpenTelemetry's docs (section pages whose later text mentions everything).

Linear in the candidates' leads: one read of at most `LEAD_CHARS` characters each, and a
merge of two position lists per pair.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from collections.abc import Sequence
from itertools import pairwise

from kenso_git.search.ranked.abbrev import Spelled
from kenso_git.search.ranked.abbrev import collapse
from kenso_git.search.ranked.rankdocs import STOP
from kenso_git.search.ranked.rankdocs import stem
from kenso_git.search.ranked.rankdocs import words
from kenso_git.store.chunkreads import lead_texts

LEAD_WORDS = 200  # words of the first chunk that make the page's lead
WINDOW = 8  # two words at most this many words apart stand together
OPENING_WORDS = 45  # signal `opening`: the first words of the first chunk it reads
LEAD_CHARS = 8000  # characters read of a first chunk: more than `LEAD_WORDS` words need
_WORD = re.compile(r"[^\W_]+")
# the first `OPENING_WORDS` words and what stands between them, matched in one step (the
# two classes are disjoint, so it never backtracks): where the opening ends
_OPENING = re.compile(rf"(?:[\W_]*[^\W_]+){{1,{OPENING_WORDS}}}")


def pairs(query: str) -> tuple[tuple[str, str], ...]:
    """The question's consecutive content words, as stemmed pairs."""
    said = [stem(w) for w in _WORD.findall(query)]
    kept = [w for w in said if w not in STOP]
    return tuple((a, b) for a, b in pairwise(kept) if a != b)


def leads(conn: sqlite3.Connection, candidates: Sequence[str]) -> dict[str, str]:
    """path -> the lead of its first chunk (its first `LEAD_CHARS` characters), for each
    candidate with chunks: read once per search for `lead` and `opening` both."""
    return lead_texts(conn, candidates, LEAD_CHARS) if candidates else {}


def lead_cover(query: str, firsts: Mapping[str, str]) -> dict[str, float]:
    """path -> the share of the question's pairs that stand together in its lead (absent:
    none, or no pair in the question)."""
    wanted = pairs(query)
    if not wanted:
        return {}
    out: dict[str, float] = {}
    for path, text in firsts.items():
        places: dict[str, list[int]] = {}
        for at, word in enumerate(_WORD.findall(text or "")[:LEAD_WORDS]):
            places.setdefault(stem(word), []).append(at)
        near = sum(1 for a, b in wanted if _together(places.get(a), places.get(b)))
        if near:
            out[path] = near / len(wanted)
    return out


def _together(left: list[int] | None, right: list[int] | None) -> bool:
    """Whether a place in `left` and one in `right` (both ascending) are 1 to `WINDOW`
    words apart."""
    if not left or not right:
        return False
    i = j = 0
    while i < len(left) and j < len(right):
        apart = right[j] - left[i]
        if apart != 0 and -WINDOW <= apart <= WINDOW:
            return True
        if left[i] < right[j]:
            i += 1
        else:
            j += 1
    return False


def opening_cover(
    wanted: frozenset[str], firsts: Mapping[str, str], spelled: tuple[Spelled, ...] = ()
) -> dict[str, float]:
    """Signal `opening` (#31, seventeenth round): path -> the share of the question's words
    (`wanted`: stemmed, stop words dropped, the names `spelled` out read as their
    abbreviations, as the other signals read it) among the first
    `OPENING_WORDS` words of its first chunk (absent: none of them).

    A description says in one sentence what the page's opening sentences say, so their
    content words are the description's more often than anywhere else in the page; counted
    over the whole page instead, every long page holds most of a question's words (a
    page-level share cost Hugo's docs 0.030 MRR@10, sixteenth round).
    """
    if not wanted:
        return {}
    out: dict[str, float] = {}
    for path, text in firsts.items():
        opening = _OPENING.match(text or "")
        if opening is None:
            continue
        held = len(wanted & collapse(words(opening.group()), spelled))
        if held:
            out[path] = held / len(wanted)
    return out
