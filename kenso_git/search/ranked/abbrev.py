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

Signal `initials` (#31, nineteenth round) bridges the other way: a question that spells a
name out and never abbreviates it ("frequently asked questions", "Windows Presentation
Foundation") is asked of pages that only abbreviate it (`faq.md` titled "Go FAQ", a
`wpf/` page titled "... in WPF"). A run of three to six of the question's content words
whose initials spell an abbreviation some candidate writes in capitals in its title or a
heading (`abbreviations`) is that abbreviation's meaning: each field of a candidate that
holds the abbreviation (title, headings, path) holds the run's words too (`expand`). The
question is left as it is, so a page that writes the name out loses nothing when the
initials happen to spell something else.
"""

from __future__ import annotations

import re

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.rankdocs import Doc
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


MIN_RUN = 3  # two words' initials spell too many short words by chance
MAX_RUN = 6


def initials_in(query: str, abbreviations: frozenset[str]) -> tuple[Spelled, ...]:
    """Each run of `MIN_RUN` to `MAX_RUN` content words of `query` whose initials spell one
    of `abbreviations` (or its plural) that the question does not write itself."""
    if not abbreviations:
        return ()
    tokens = _TOKEN.findall(query)
    said = {t.lower() for t in tokens}
    content = [t.isalpha() and bool(words(t)) for t in tokens]
    found: list[Spelled] = []
    for n in range(MIN_RUN, MAX_RUN + 1):
        for i in range(len(tokens) - n + 1):
            if not all(content[i : i + n]):
                continue
            letters = "".join(t[0] for t in tokens[i : i + n]).lower()
            if letters in said:
                continue
            for short in (letters, letters + "s"):
                if short in abbreviations:
                    long = words(" ".join(tokens[i : i + n]))
                    if len(long) >= 2:
                        found.append(Spelled(long, short))
    return tuple(found)


def expand(field: frozenset[str], spelled: tuple[Spelled, ...]) -> frozenset[str]:
    """`field` with the words of each name whose abbreviation it holds."""
    for name in spelled:
        if name.short in field:
            field = field | name.long
    return field


def initials_of(query: str, docs: dict[str, Doc]) -> tuple[Spelled, ...]:
    """Signal `initials`: the runs of the question that spell an abbreviation one of the
    candidates `docs` writes in its title or a heading."""
    return initials_in(query, frozenset().union(*(doc.caps for doc in docs.values())))


def expanded(doc: Doc, meant: tuple[Spelled, ...]) -> Doc:
    """`doc`'s title, headings and vocabulary with the words of each name they abbreviate."""
    return doc._replace(
        title=expand(doc.title, meant),
        headings=tuple(expand(h, meant) for h in doc.headings),
        vocab=expand(doc.vocab, meant),
    )
