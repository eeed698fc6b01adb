"""CJK queries, answered from the trigram side index `cjk_fts` (store/trigram.py, #18).

A query holding a Han, Kana or Hangul character is split into terms: each CJK run and
each other word of 3+ characters. The AND stage needs every term in the chunk: terms of
3+ characters through the trigram index (a phrase is a substring match), CJK terms of 1-2
characters (most Chinese and Korean words) by `instr` on the rows the index returns, or by
a scan of the side table when no term is long enough for the index (linear in the CJK
text only; SQLite 3.40's trigram LIKE misses 2-character CJK patterns, so not LIKE). The
OR stage then ranks the chunks by how many of the query's character trigrams they share,
which finds a reworded sentence. The rows go through the same filters as the main cascade
(category and the scope gate's path function).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.search.highlightcap import ELLIPSIS
from kenso_git.search.highlightcap import MARK_CLOSE
from kenso_git.search.highlightcap import MARK_OPEN
from kenso_git.search.ranked.query import AND
from kenso_git.search.ranked.query import MAX_QUERY_TERMS
from kenso_git.search.ranked.query import OR
from kenso_git.search.ranked.query import STOP_WORDS
from kenso_git.store import budget
from kenso_git.store import trigram

MAX_GRAMS = 64  # the OR stage's trigrams; the query caps keep the rest bounded too
OR_TIER = 2  # the main cascade's OR tier: AND hits rank above it
_WORD = re.compile(r"[^\W_]+")
_LEAD, _SPAN = 30, 100  # highlight: characters before the first match, and in all


class TrigramStage(NamedTuple):
    """A stage answered by `cjk_fts` (a `Stage` with the terms its highlight marks)."""

    expression: str
    label: str
    terms: tuple[str, ...] = ()


# (chunk id, file path, title, section path, category, tags, score, tier, stage)
CjkRow = tuple[int, str, str, str, str, "str | None", float, int, TrigramStage]


def wanted(conn: sqlite3.Connection, text: str) -> bool:
    """True when `text` holds CJK and the index has a side table to answer it."""
    return trigram.has_cjk(text) and trigram.present(conn)


def split_terms(text: str) -> tuple[list[str], list[str]]:
    """The query's (long, short) terms: CJK runs and other words of 3+ characters are long;
    CJK runs of 1-2 characters are short; stop words and other short words are dropped.

    At most MAX_QUERY_TERMS in all: punctuation, not spaces, may separate CJK words, so
    the query's word cap does not bound them, and each short term is a scan condition.
    """
    long: dict[str, None] = {}
    short: dict[str, None] = {}
    for word in _WORD.findall(text):
        for run, cjk in _runs(word):
            if cjk:
                (long if len(run) >= 3 else short)[run] = None
            elif len(run) >= 3 and run.lower() not in STOP_WORDS:
                long[run.lower()] = None
            if len(long) + len(short) >= MAX_QUERY_TERMS:
                return list(long), list(short)
    return list(long), list(short)


def term_pieces(text: str, phrase: bool) -> tuple[list[str], list[str]]:
    """The (long, short) pieces a chunk holds when it holds the query-language term `text`:
    a word's as the AND stage splits it (`split_terms`); a phrase whole, as written (a
    trigram phrase matches a substring)."""
    if not phrase:
        return split_terms(text)
    text = text.strip()
    return ([text], []) if len(text) >= 3 else ([], [text] if text else [])


def _runs(word: str) -> list[tuple[str, bool]]:
    """`word` cut where it changes between CJK and other characters."""
    out: list[tuple[str, bool]] = []
    for ch in word:
        cjk = trigram.has_cjk(ch)
        if out and out[-1][1] == cjk:
            out[-1] = (out[-1][0] + ch, cjk)
        else:
            out.append((ch, cjk))
    return out


def _grams(terms: Sequence[str]) -> list[str]:
    grams: dict[str, None] = {}
    for term in terms:
        if trigram.has_cjk(term):
            for i in range(len(term) - 2):
                grams[term[i : i + 3]] = None
        else:
            grams[term] = None
    return list(grams)[:MAX_GRAMS]


def _phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def rows(
    conn: sqlite3.Connection,
    text: str,
    where: str,
    params: list[object],
    fetch: int,
    threshold: int,
) -> list[CjkRow]:
    """The chunks answering `text` from the side index, AND stage first (`where`/`params`:
    the cascade's filters on the `chunks` alias `c`)."""
    long, short = split_terms(text)
    if not long and not short:
        return []
    found: list[CjkRow] = []
    seen: set[int] = set()
    and_stage = TrigramStage(" AND ".join(map(_phrase, long)), AND, (*long, *short))
    for row in _and_rows(conn, and_stage, long, short, where, params, fetch):
        seen.add(row[0])
        found.append(row)
    grams = _grams(long)
    if len({r[1] for r in found}) >= threshold or len(grams) < 2:
        return found
    budget.check()
    or_stage = TrigramStage(" OR ".join(map(_phrase, grams)), OR, (*long, *short, *grams))
    cur = trigram.matches(conn, or_stage.expression, (), where, params, fetch)
    found.extend((*_cols(r), OR_TIER, or_stage) for r in cur if r[0] not in seen)
    return found


def _cols(r: Sequence[object]) -> tuple[int, str, str, str, str, str | None, float]:
    tags = r[5]
    return (
        int(str(r[0])),
        str(r[1]),
        str(r[2] or ""),
        str(r[3] or ""),
        str(r[4] or ""),
        None if tags is None else str(tags),
        float(str(r[6])),
    )


def _and_rows(
    conn: sqlite3.Connection,
    stage: TrigramStage,
    long: list[str],
    short: list[str],
    where: str,
    params: list[object],
    fetch: int,
) -> list[CjkRow]:
    if long:
        found = trigram.matches(conn, stage.expression, short, where, params, fetch)
    else:  # only 1-2 character words: a scan of the side table, scored in SQL
        found = trigram.scan(conn, short, where, params, fetch)
    return [(*_cols(r), 0, stage) for r in found]


def holding(
    conn: sqlite3.Connection,
    long: Sequence[str],
    short: Sequence[str],
    where: str,
    params: list[object],
) -> list[CjkRow]:
    """Every chunk of the side index holding each of `long` and `short` (`term_pieces`),
    best first: the AND stage with no limit, linear in the rows it reads (the query
    language's phrases, exhaustive mode and negations, #49)."""
    long, short = list(dict.fromkeys(long)), list(dict.fromkeys(short))
    if not long and not short:
        return []
    budget.check()
    stage = TrigramStage(" AND ".join(map(_phrase, long)), AND, (*long, *short))
    return _and_rows(conn, stage, long, short, where, params, -1)  # LIMIT -1: every row


def highlight(content: str, terms: Sequence[str]) -> str:
    """About 100 characters of `content` around the first term found, terms marked."""
    wanted_terms = sorted({t for t in terms if t}, key=len, reverse=True)
    if not wanted_terms or not content:
        return ""
    pattern = re.compile("|".join(map(re.escape, wanted_terms)), re.IGNORECASE)
    first = pattern.search(content)
    if first is None:
        return ""
    start = max(0, first.start() - _LEAD)
    end = min(len(content), start + _SPAN)
    window = pattern.sub(lambda m: f"{MARK_OPEN}{m.group(0)}{MARK_CLOSE}", content[start:end])
    return (ELLIPSIS if start else "") + window + (ELLIPSIS if end < len(content) else "")
