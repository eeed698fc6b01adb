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
from kenso_git.search.preview import ELLIPSIS
from kenso_git.search.preview import MARK_CLOSE
from kenso_git.search.preview import MARK_OPEN
from kenso_git.search.ranked.query import AND
from kenso_git.search.ranked.query import MAX_QUERY_TERMS
from kenso_git.search.ranked.query import OR
from kenso_git.search.ranked.query import STOP_WORDS
from kenso_git.store import budget
from kenso_git.store import trigram

MAX_GRAMS = 64  # the OR stage's trigrams; the query caps keep the rest bounded too
OR_TIER = 2  # the main cascade's OR tier: AND hits rank above it
_WORD = re.compile(r"[^\W_]+")
_BM25 = "bm25({t}, {w})".format(t=trigram.TABLE, w=", ".join(map(str, trigram.BM25_WEIGHTS)))
_COLS = "c.id, c.file_path, c.title, c.section_path, c.category, c.tags"
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


def _contains(n: int) -> str:
    one = "(instr(t.content, ?) OR instr(t.title, ?) OR instr(t.section_path, ?))"
    return "".join(f" AND {one}" for _ in range(n))


def _scan_score(n: int) -> str:
    """A score for rows found without the index: title and section hits, then density."""
    one = (
        "(10.0 * (instr(t.title, ?) > 0) + 8.0 * (instr(t.section_path, ?) > 0) + "
        "(length(t.content) - length(replace(t.content, ?, ''))) * 1.0 / "
        "(length(?) * (1 + length(t.content) / 2000.0)))"
    )
    return " + ".join([one] * n)


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
    sql = (
        f"SELECT {_COLS}, -{_BM25} FROM {trigram.TABLE} t JOIN chunks c ON c.id = t.rowid "
        f"WHERE {trigram.TABLE} MATCH ?{where} ORDER BY {_BM25} LIMIT ?"
    )
    cur = conn.execute(sql, [or_stage.expression, *params, fetch])
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
    contains = [p for term in short for p in (term, term, term)]
    if long:
        sql = (
            f"SELECT {_COLS}, -{_BM25} FROM {trigram.TABLE} t JOIN chunks c ON c.id = t.rowid "
            f"WHERE {trigram.TABLE} MATCH ?{_contains(len(short))}{where} "
            f"ORDER BY {_BM25} LIMIT ?"
        )
        args: list[object] = [stage.expression, *contains, *params, fetch]
    else:  # only 1-2 character words: a scan of the side table, scored in SQL
        score = [p for term in short for p in (term, term, term, term)]
        sql = (
            f"SELECT {_COLS}, {_scan_score(len(short))} AS score FROM {trigram.TABLE} t "
            f"JOIN chunks c ON c.id = t.rowid WHERE 1{_contains(len(short))}{where} "
            "ORDER BY score DESC LIMIT ?"
        )
        args = [*score, *contains, *params, fetch]
    return [(*_cols(r), 0, stage) for r in conn.execute(sql, args)]


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
