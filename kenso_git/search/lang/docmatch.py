"""Matching of the agent `search`: which documents hold every word and phrase.

The FTS5 expression quotes every term as an FTS5 string (a `"` in it doubled), so the
query language never reaches FTS5's own syntax; `content_paths` skips bm25 (most of a
match's cost) for callers that order by path.

`unicode61` keeps a run of Chinese, Japanese or Korean characters as one token, so FTS5
finds a CJK word only when it is a whole run (`端口号` is not one in `请确认端口号设置`).
A term holding CJK is therefore also looked up as ranked words are: in the trigram side
index (`search.ranked.cjk`), a word by its pieces, a phrase as written (#49). A chunk then
holds the query when the side index holds its CJK terms and FTS5 its other terms, so a
phrase, exhaustive mode and a negation (`-端口号`) give the verdict the words do.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from collections.abc import Sequence

from kenso_git.search.lang.querylang import Term
from kenso_git.search.ranked import cjk
from kenso_git.search.ranked.query import has_token
from kenso_git.store import chunkreads
from kenso_git.store import trigram
from kenso_git.text.titlewords import clean


def fts_expression(terms: Iterable[Term]) -> str | None:
    """The FTS5 expression that needs every term (each quoted), or None when no term has
    a character the tokenizer keeps."""
    parts = [_quoted(t.text) for t in terms if has_token(clean(t.text))]
    return " AND ".join(parts) if parts else None


def _quoted(text: str) -> str:
    """`text` as an FTS5 string: inside one no character is syntax but `"` (written twice),
    and the tokenizer splits it as it split the pages (`localhost:8080` is `localhost`
    then `8080`; deleting the `:` would ask for `localhost8080`, which no page holds)."""
    return '"' + text.replace('"', '""') + '"'


def content_hits(
    conn: sqlite3.Connection, terms: Sequence[Term], only: list[str] | None = None
) -> dict[str, tuple[float, int, str]]:
    """file path -> (score, best chunk id, its section) of the documents one of whose chunks
    holds every term (of `only`, when given)."""
    expression = fts_expression(terms)
    if expression is None:
        return {}
    hits = {
        path: (round(-rank, 6), chunk_id, section or "")
        for path, rank, chunk_id, section in chunkreads.best_per_document(conn, expression, only)
    }
    for row in _cjk_chunks(conn, terms, only):  # best first: a document's first row is its best
        hits.setdefault(row[1], (round(row[6], 6), row[0], row[3]))
    return hits


def content_paths(conn: sqlite3.Connection, terms: Sequence[Term]) -> set[str]:
    """The paths of the documents one of whose chunks holds every term, unscored (bm25 is
    most of a match's cost)."""
    expression = fts_expression(terms)
    if expression is None:
        return set()
    paths = chunkreads.matching_paths(conn, expression)
    paths.update(row[1] for row in _cjk_chunks(conn, terms, None))
    return paths


def _cjk_chunks(
    conn: sqlite3.Connection, terms: Sequence[Term], only: list[str] | None
) -> list[cjk.CjkRow]:
    """The chunks holding every term through the side index, best first: none when no term
    holds CJK or the index has no side table (the FTS5 match is then the whole answer)."""
    wide = [t for t in terms if trigram.has_cjk(t.text)]
    if not wide or not trigram.present(conn):
        return []
    long: list[str] = []
    short: list[str] = []
    for term in wide:
        more_long, more_short = cjk.term_pieces(term.text, term.phrase)
        long += more_long
        short += more_short
    where, params = "", list[object]()
    if only is not None:
        where, params = f" AND c.file_path IN {chunkreads.IDS}", [json.dumps(only)]
    rows = cjk.holding(conn, long, short, where, params)
    rest = fts_expression(t for t in terms if not trigram.has_cjk(t.text))
    if rest is None or not rows:
        return rows
    # the other terms, in FTS5, of these chunks only: a chunk must hold every term
    ids = json.dumps([row[0] for row in rows])
    found = chunkreads.ranked_matches(conn, rest, f" AND c.id IN {chunkreads.IDS}", [ids], -1)
    kept = {r[0] for r in found}
    return [row for row in rows if row[0] in kept]
