"""Signal `abbrev` (#31): a name the question spells out and abbreviates is one word.

A question that writes a name out and abbreviates it ("printing in Windows Presentation
Foundation (WPF)", "the Common Information Model (CIM)") names one thing, not four. Read
as four words, the name outweighs the rest of the question in every coverage the ranking
signals measure: the overview page titled "What is Windows Presentation Foundation" covers
three of the question's nine words and outranks the printing page. The run of words whose
initials spell the abbreviation that follows them is read as that abbreviation, in the
question and in every field it is compared with (title, headings, summary, path), so a
field that names the thing, spelt out or abbreviated, covers one word of the question.

Only the question is read (no corpus table: nothing at ingest, nothing per index); an
abbreviation is a word of two to eight letters with at least two capitals (`WPF`, `RHEL`,
`GDI`) that the run of words just before it spells.
"""

from __future__ import annotations

import re

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.rankdocs import words

_TOKEN = re.compile(r"[^\W_]+")
MIN_LETTERS = 2
MAX_LETTERS = 8


class Spelled(NamedTuple):
    """A name the question spells out (`long`, its stemmed words) and abbreviates (`short`)."""

    long: frozenset[str]
    short: str


def _abbreviation(token: str) -> bool:
    capitals = sum(c.isupper() for c in token)
    return MIN_LETTERS <= len(token) <= MAX_LETTERS and capitals >= 2 and token.isalpha()


def spelled_out(query: str) -> tuple[Spelled, ...]:
    """Each abbreviation of `query` that the words just before it spell, with those words."""
    tokens = _TOKEN.findall(query)
    found: list[Spelled] = []
    for i, token in enumerate(tokens):
        letters = token.lower()
        if i < len(letters) or not _abbreviation(token):
            continue
        run = tokens[i - len(letters) : i]
        if "".join(w[0] for w in run).lower() != letters:
            continue
        long, short = words(" ".join(run)), words(token)
        if len(long) >= 2 and len(short) == 1:
            found.append(Spelled(long, next(iter(short))))
    return tuple(found)


def collapse(field: frozenset[str], spelled: tuple[Spelled, ...]) -> frozenset[str]:
    """`field` with each name it spells out in full read as that name's abbreviation."""
    for name in spelled:
        if name.long <= field:
            field = (field - name.long) | {name.short}
    return field
