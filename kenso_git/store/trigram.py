"""The CJK side index: an FTS5 trigram table of the chunks that hold CJK text (#18).

FTS5's `unicode61` tokenizer does not segment Chinese, Japanese or Korean: a run of Han,
Kana or Hangul becomes one token, so a word inside a sentence is never found. `cjk_fts`
indexes those chunks again with the `trigram` tokenizer (SQLite 3.34+), which matches any
substring of three or more characters. Its triggers fire only for rows whose text holds a
CJK character, so a corpus without CJK pays one GLOB scan per written chunk and stores
nothing.

The table and its triggers are not part of the versioned schema (store/schema.py): an
ingest creates them with IF NOT EXISTS (`ensure`, in its write transaction) and drops them
when the `cjk` setting is `off`. A kenso-git or kenso that does not know them still writes
through the triggers, so the side index stays equal to the chunks whoever writes. The
mode the table was filled with is kept in `meta` (`cjk_mode`).
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Sequence

TABLE = "cjk_fts"
META_MODE = "cjk_mode"
MODES = ("auto", "off")
# bm25() weights in column order: title, section_path, content (the main index's weights)
BM25_WEIGHTS = (10.0, 8.0, 1.0)

# Hiragana and Katakana, CJK Extension A, CJK Unified Ideographs, Hangul syllables and Jamo,
# CJK compatibility ideographs, half-width Katakana, and the supplementary ideograph planes.
CJK_RANGES = (
    (0x1100, 0x11FF),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
    (0x20000, 0x2FA1F),
)
# SQLite's GLOB compares code points in a [a-b] class, so this one pattern finds CJK text
# in C at ingest, with no Python function that other writers of the file would lack.
_CLASS = "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES)  # `[...]` of GLOB and _cjk
GLOB = f"*[{_CLASS}]*"

_TRIGGERS = ("cjk_ai", "cjk_ad", "cjk_au")


# The same test in Python, for the text a bulk insert holds (BulkInsert).
# Compiled when first needed: the class of supplementary-plane ranges takes ~6 ms, which
# every command paid at import (the connection module imports this one).
@functools.cache
def _cjk() -> re.Pattern[str]:
    return re.compile(f"[{_CLASS}]")


_TITLE = "coalesce({r}.title, '') || coalesce(' ' || {r}.doc_title, '')"
_TEXT_COLUMNS = ("content", "title", "doc_title", "section_path")
# The GLOB scan costs about 0.16 s per million characters (27% of a cold ingest of an
# English docs tree), so two cheaper tests run first: any byte over 0x7F (the byte length
# is not the character length), then a UTF-8 lead byte of the CJK blocks (0xE1, 0xE3-0xED,
# 0xEF, 0xF0; not 0xE2, the punctuation and symbols that English text holds). Each is a
# byte scan in C, and only text that passes both reaches the GLOB.
_LEAD_BYTES = (0xE1, *range(0xE3, 0xEE), 0xEF, 0xF0)


def _column_has_cjk(col: str) -> str:
    leads = " OR ".join(f"instr(CAST({col} AS BLOB), X'{b:02X}')" for b in _LEAD_BYTES)
    return f"(length(CAST({col} AS BLOB)) != length({col}) AND ({leads}) AND {col} GLOB '{GLOB}')"


def cjk_condition(row: str) -> str:
    """SQL true when the chunk_rows row `row` holds CJK text in a column the side index keeps."""
    return "(" + " OR ".join(_column_has_cjk(f"{row}.{c}") for c in _TEXT_COLUMNS) + ")"


def _values(row: str) -> str:
    return f"{row}.id, {_TITLE.format(r=row)}, coalesce({row}.section_path, ''), {row}.content"


_COLUMNS = "rowid, title, section_path, content"
DDL: tuple[str, ...] = (
    f"""
    CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(
        title, section_path, content, tokenize='trigram'
    )
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS cjk_ai AFTER INSERT ON chunk_rows WHEN {cjk_condition("new")}
    BEGIN
        INSERT INTO {TABLE}({_COLUMNS}) VALUES ({_values("new")});
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS cjk_ad AFTER DELETE ON chunk_rows BEGIN
        DELETE FROM {TABLE} WHERE rowid = old.id;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS cjk_au AFTER UPDATE OF title, doc_title, section_path, content
    ON chunk_rows BEGIN
        DELETE FROM {TABLE} WHERE rowid = old.id;
        INSERT INTO {TABLE}({_COLUMNS}) SELECT {_values("new")} WHERE {cjk_condition("new")};
    END
    """,
)


def text_has_cjk(*texts: str | None) -> bool:
    """`cjk_condition` in Python, for the columns of a row the writer holds."""
    # isascii() is a flag lookup: most chunks of an English tree skip the scan
    return any(t is not None and not t.isascii() and _cjk().search(t) is not None for t in texts)


def refresh_triggers(conn: sqlite3.Connection) -> None:
    """Recreate the side index's triggers (if it has one) from today's DDL."""
    if not present(conn):
        return
    for trigger in _TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for statement in DDL[1:]:
        conn.execute(statement)


def has_cjk(text: str) -> bool:
    """True when `text` holds a Han, Kana or Hangul character."""
    return any(_is_cjk(ord(ch)) for ch in text if ord(ch) >= 0x1100)


def _is_cjk(code: int) -> bool:
    return any(a <= code <= b for a, b in CJK_RANGES)


def ensure(conn: sqlite3.Connection, mode: str, stored: str | None) -> bool:
    """Make the side index match `mode` (`auto` or `off`); call inside the write transaction.

    `stored` is the mode recorded in meta. A change of mode fills or drops the table from
    the chunk rows once; an index already in `mode` costs one catalogue lookup. Returns
    True when it changed the index (the caller bumps the generation: cached hits go stale).
    """
    if mode == (stored or "off") and (mode == "off" or present(conn)):
        return False
    for trigger in _TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    if mode == "off":
        conn.execute("DELETE FROM meta WHERE key = ?", (META_MODE,))
        return True
    for statement in DDL:
        conn.execute(statement)
    conn.execute(
        f"INSERT INTO {TABLE}({_COLUMNS}) SELECT {_values('r')} FROM chunk_rows r "
        f"WHERE {cjk_condition('r')}"
    )
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (META_MODE, mode),
    )
    return True


def suspend(conn: sqlite3.Connection) -> bool:
    """Drop the insert trigger for a bulk insert (store/chunks.py's BulkInsert); True when
    there is a side index to `resume`.

    A trigger that may write a virtual table gives each INSERT a statement savepoint, and
    FTS5 (SQLite 3.40) writes out the main index's pending terms at every savepoint: the
    bulk path's batches became many small segments, and searches 20% slower.
    """
    if not present(conn):
        return False
    conn.execute("DROP TRIGGER IF EXISTS cjk_ai")
    return True


def resume(conn: sqlite3.Connection, after_id: int, ids: list[int] | None = None) -> None:
    """Index the CJK chunks a bulk insert added, restore the trigger: `ids`, the ones the
    writer found CJK text in (`text_has_cjk`), or else those above `after_id` that hold it.

    The writer's test saves the SQL one: a GLOB scan of each row's text.
    """
    if ids is None:
        conn.execute(
            f"INSERT INTO {TABLE}({_COLUMNS}) SELECT {_values('r')} FROM chunk_rows r "
            f"WHERE r.id > ? AND {cjk_condition('r')}",
            (after_id,),
        )
    elif ids:
        conn.execute(
            f"INSERT INTO {TABLE}({_COLUMNS}) SELECT {_values('r')} FROM chunk_rows r "
            "WHERE r.id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
    conn.execute(DDL[1])


_BM25 = "bm25({t}, {w})".format(t=TABLE, w=", ".join(map(str, BM25_WEIGHTS)))
_ROW_COLUMNS = "c.id, c.file_path, c.title, c.section_path, c.category, c.tags"


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


def matches(
    conn: sqlite3.Connection,
    expression: str,
    contained: Sequence[str],
    where: str,
    params: list[object],
    fetch: int,
) -> list[tuple[object, ...]]:
    """The `fetch` best chunks of the side index matching `expression` whose text also
    contains each of `contained` (words too short for trigrams): the chunk columns of
    `store.chunkreads.ChunkRow`, then the negated BM25 rank (higher is better). `where` and
    `params` filter on the `chunks` alias `c`."""
    sql = (
        f"SELECT {_ROW_COLUMNS}, -{_BM25} FROM {TABLE} t JOIN chunks c ON c.id = t.rowid "
        f"WHERE {TABLE} MATCH ?{_contains(len(contained))}{where} ORDER BY {_BM25} LIMIT ?"
    )
    contains = [p for term in contained for p in (term, term, term)]
    return conn.execute(sql, [expression, *contains, *params, fetch]).fetchall()


def scan(
    conn: sqlite3.Connection, terms: Sequence[str], where: str, params: list[object], fetch: int
) -> list[tuple[object, ...]]:
    """The `fetch` chunks of the side table holding every one of `terms` (1-2 characters
    each, which trigrams cannot match), scored by title and section hits, then density."""
    sql = (
        f"SELECT {_ROW_COLUMNS}, {_scan_score(len(terms))} AS score FROM {TABLE} t "
        f"JOIN chunks c ON c.id = t.rowid WHERE 1{_contains(len(terms))}{where} "
        "ORDER BY score DESC LIMIT ?"
    )
    score = [p for term in terms for p in (term, term, term, term)]
    contains = [p for term in terms for p in (term, term, term)]
    return conn.execute(sql, [*score, *contains, *params, fetch]).fetchall()


def present(conn: sqlite3.Connection) -> bool:
    """True when the index has a CJK side table (a reader decides per query)."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    return row is not None
