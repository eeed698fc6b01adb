"""The read side's SQL over chunks: FTS5 matches ranked by BM25, snippets, chunk texts and the
per-document rows the ranking signals read.

The engines in `search/` (ranked, query language, related docs) decide what to ask; every
statement they run is here, so the schema and its query plans are read in one place. Rows
come back as tuples in the column order each function names. `where`/`params` are the
filters of `chunk_filter` on the `chunks` alias `c`.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable
from collections.abc import Sequence

from kenso_git.store.schema import BM25_WEIGHTS

ChunkRow = tuple[int, str, str | None, str | None, str | None, str | None]
"""id, file path, title, section path, category, tags (JSON) of a chunk."""

SNIPPET_TOKENS = 32
SNIPPET_MAX_ROW_TOKENS = 2048
"""The largest FTS entry (tokens, all columns) `snippets` asks FTS5's snippet() about.
snippet() scores the window at each hit of the column against every hit of the row
(SQLite 3.40 fts5_aux.c), so it costs (hits in the row)^2 in one VM step, where no
progress handler runs: 16,000 hits took 1.2 s, a 1 MB chunk of them 30 s (finding t48b-1).
At this size it costs at most ~20 ms (a hit at every token); highlight() copies its
output once per hit (quadratic as well), so a larger row gets `UNSNIPPETED`."""
UNSNIPPETED = "..."
"""The snippet of a row too large for snippet(): it marks nothing, so the hit's highlight
is built from its content, in linear time (search/preview.py `clean_highlight`)."""
PATH_FUNCTION = "kenso_path_allowed"  # the scope gate, as an SQL function of a read's connection
ROW_COLUMNS = "c.id, c.file_path, c.title, c.section_path, c.category, c.tags"
BM25 = "bm25(chunks_fts, {})".format(", ".join(str(w) for w in BM25_WEIGHTS))
_SNIPPET = f"snippet(chunks_fts, 4, '<mark>', '</mark>', '...', {SNIPPET_TOKENS})"
IDS = "(SELECT value FROM json_each(?))"  # a JSON array parameter as a set of values


def escape_like(text: str) -> str:
    """`text` with LIKE wildcards escaped for `ESCAPE '\\'`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def chunk_filter(
    category: str | None, has_path_filter: bool, alias: str = "c"
) -> tuple[str, list[object]]:
    """The `AND ...` clauses and their parameters keeping the chunks of `category` (None:
    any) whose path the connection's path filter allows (`install_path_filter`)."""
    clauses, params = "", list[object]()
    if category is not None:
        clauses += f" AND {alias}.category = ?"
        params.append(category)
    if has_path_filter:
        clauses += f" AND {PATH_FUNCTION}({alias}.file_path)"
    return clauses, params


def install_path_filter(conn: sqlite3.Connection, path_filter: Callable[[str], bool]) -> None:
    """Make `path_filter` the SQL function `chunk_filter(..., has_path_filter=True)` calls."""
    conn.create_function(PATH_FUNCTION, 1, lambda p: bool(path_filter(p)), deterministic=True)


Ranked = list[tuple[int, str, str | None, str | None, str | None, str | None, float]]
KEPT_SLACK = 2  # the first look ranks this many times `fetch`: a few refused paths cost no more


def ranked_matches(
    conn: sqlite3.Connection,
    expression: str,
    where: str,
    params: list[object],
    fetch: int,
    keep: Callable[[str], bool] | None = None,
) -> Ranked:
    """The `fetch` best chunks matching the FTS5 `expression`, best first, each a `ChunkRow`
    plus its BM25 rank (lower is better). Raises `sqlite3.OperationalError` for an
    expression FTS5 refuses.

    With `keep` (the scope gate), the best `fetch` of those whose path it keeps, as an SQL
    filter would keep them, but asked in rank order and only until `fetch` are kept: every
    match is ranked (BM25 needs them all), the gate only judges what the page may show.
    """
    if keep is None:
        return _best(conn, expression, where, params, fetch)
    if fetch == 0:
        return []
    # ties rank in chunk id order, FTS5's: the order ORDER BY rank LIMIT keeps them in
    first = _best(
        conn, expression, where, params, -1 if fetch < 0 else fetch * KEPT_SLACK, tied=True
    )
    kept = _kept(first, keep, fetch)
    if len(kept) == fetch or fetch < 0 or len(first) < fetch * KEPT_SLACK:
        return kept
    return kept + _kept_past(conn, expression, where, params, len(first), keep, fetch - len(kept))


def _best(
    conn: sqlite3.Connection,
    expression: str,
    where: str,
    params: list[object],
    fetch: int,
    *,
    tied: bool = False,
) -> Ranked:
    """The `fetch` best matches (-1: all), ties in chunk id order when `tied`."""
    if not where:  # rank inside the FTS table first, then join the few rows kept: 2x faster
        inner, outer = ("rank, rowid", "f.rank, f.id") if tied else ("rank", "f.rank")
        sql = (
            f"SELECT {ROW_COLUMNS}, f.rank FROM (SELECT rowid AS id, {BM25} AS rank "
            f"FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY {inner} LIMIT ?) f "
            f"JOIN chunks c ON c.id = f.id ORDER BY {outer}"
        )
        return conn.execute(sql, [expression, fetch]).fetchall()
    sql = (
        f"SELECT {ROW_COLUMNS}, {BM25} AS rank FROM chunks_fts "
        f"JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?{where} "
        f"ORDER BY rank{', c.id' if tied else ''} LIMIT ?"
    )
    return conn.execute(sql, [expression, *params, fetch]).fetchall()


def _kept(rows: Ranked, keep: Callable[[str], bool], fetch: int) -> Ranked:
    """The first `fetch` of `rows` (-1: all) whose path `keep` keeps, asked in order."""
    kept: Ranked = []
    for row in rows:
        if len(kept) == fetch:
            break
        if keep(row[1]):
            kept.append(row)
    return kept


def _kept_past(
    conn: sqlite3.Connection,
    expression: str,
    where: str,
    params: list[object],
    skip: int,
    keep: Callable[[str], bool],
    fetch: int,
) -> Ranked:
    """The first `fetch` matches after the best `skip` whose path `keep` keeps: every match
    is ranked by id and path alone (a sort of narrow rows), judged in that order, and the
    columns are read for the kept ones only."""
    sql = (
        f"SELECT c.id, c.file_path, {BM25} AS rank FROM chunks_fts "
        f"JOIN chunk_rows c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?{where} "
        "ORDER BY rank, c.id"
    )
    ranks: dict[int, float] = {}
    cur = conn.execute(sql, [expression, *params])
    try:
        for chunk_id, path, rank in itertools.islice(cur, skip, None):
            if keep(path):
                ranks[chunk_id] = rank
                if len(ranks) == fetch:
                    break
    finally:
        cur.close()
    if not ranks:
        return []
    sql = f"SELECT {ROW_COLUMNS} FROM chunks c WHERE c.id IN {IDS}"
    rows = {r[0]: r for r in conn.execute(sql, (json.dumps(list(ranks)),))}
    return [(*rows[i], rank) for i, rank in ranks.items() if i in rows]


def path_matches(
    conn: sqlite3.Connection, like: str, where: str, params: list[object], fetch: int
) -> list[ChunkRow]:
    """Chunks whose path matches the LIKE pattern `like` (escaped with `\\`), by path."""
    sql = (
        f"SELECT {ROW_COLUMNS} FROM chunks c WHERE c.file_path LIKE ? ESCAPE '\\'{where} "
        "ORDER BY c.file_path, c.chunk_index LIMIT ?"
    )
    return conn.execute(sql, [like, *params, fetch]).fetchall()


def snippets(
    conn: sqlite3.Connection, expression: str, ids: Sequence[int]
) -> list[tuple[int, str]]:
    """(chunk id, FTS5 snippet with `<mark>`s) of the chunks `ids` for `expression`;
    `UNSNIPPETED` for those whose FTS entry holds more than `SNIPPET_MAX_ROW_TOKENS`."""
    sizes = row_tokens(conn, ids)
    large = [i for i in ids if sizes.get(i, 0) > SNIPPET_MAX_ROW_TOKENS]
    small = [i for i in ids if sizes.get(i, 0) <= SNIPPET_MAX_ROW_TOKENS]
    sql = f"SELECT rowid, {_SNIPPET} FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN {IDS}"
    found = conn.execute(sql, (expression, json.dumps(small))).fetchall() if small else []
    return [*found, *((i, UNSNIPPETED) for i in large)]


def row_tokens(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    """chunk id -> how many tokens its FTS entry holds, all columns (FTS5's docsize)."""
    sql = f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN {IDS}"
    return {i: _varint_sum(sz) for i, sz in conn.execute(sql, (json.dumps(list(ids)),))}


def _varint_sum(blob: bytes) -> int:
    """The sum of the varints of a docsize blob (one per column: big-endian, 7 bits a
    byte, the high bit set on all but the last; token counts never reach a 9-byte one)."""
    total = value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            total, value = total + value, 0
    return total


_LINKING = " AND (instr(content, '](') > 0 OR instr(content, '{{') > 0)"


def contents(
    conn: sqlite3.Connection, ids: Sequence[int], *, linking: bool = False
) -> dict[int, str]:
    """chunk id -> its content; with `linking`, only of the chunks that hold a Markdown link
    (`](`) or a shortcode (`{{`): the others are left in SQLite, unread."""
    sql = f"SELECT id, content FROM chunks WHERE id IN {IDS}{_LINKING if linking else ''}"
    return dict(conn.execute(sql, (json.dumps(list(ids)),)))


def sections(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """chunk id -> (content, section path), blanks for NULLs."""
    sql = f"SELECT id, content, section_path FROM chunks WHERE id IN {IDS}"
    return {r[0]: (r[1] or "", r[2] or "") for r in conn.execute(sql, (json.dumps(list(ids)),))}


def document_chunks(
    conn: sqlite3.Connection, path: str
) -> list[tuple[str | None, str, str | None, str | None, str | None]]:
    """(title, content, category, audience, tags) of each chunk of `path`, in order."""
    sql = (
        "SELECT title, content, category, audience, tags FROM chunks "
        "WHERE file_path = ? ORDER BY chunk_index"
    )
    return conn.execute(sql, (path,)).fetchall()


def headings(
    conn: sqlite3.Connection, paths: Sequence[str]
) -> list[tuple[str, int, str | None, str | None, str | None]]:
    """(file path, chunk index, title, document title, section path) of every chunk of
    `paths`: what the title and heading signals read."""
    sql = (
        "SELECT file_path, chunk_index, title, doc_title, section_path FROM chunks "
        f"WHERE file_path IN {IDS}"
    )
    return conn.execute(sql, (json.dumps(list(paths)),)).fetchall()


def labels(conn: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, str | None]]:
    """(path, labelled lines) of the documents `paths`; [] for a schema-1 index, read
    without migrating it, which has no `documents` table."""
    sql = f"SELECT path, labels FROM documents WHERE path IN {IDS}"
    try:
        return conn.execute(sql, (json.dumps(list(paths)),)).fetchall()
    except sqlite3.OperationalError:
        return []


def first_chunks(
    conn: sqlite3.Connection, paths: Sequence[str], where: str, params: list[object]
) -> list[ChunkRow]:
    """The first chunk of each document of `paths` the filters keep."""
    sql = (
        f"SELECT {ROW_COLUMNS}, MIN(c.chunk_index) FROM chunks c WHERE c.file_path IN {IDS}"
        f"{where} GROUP BY c.file_path"
    )
    return [r[:6] for r in conn.execute(sql, [json.dumps(list(paths)), *params])]


def best_per_document(
    conn: sqlite3.Connection, expression: str, only: Sequence[str] | None = None
) -> list[tuple[str, float, int, str | None]]:
    """(file path, best BM25 rank, its chunk id, its section) of each document matching
    `expression` (of `only`, when given)."""
    # bm25() cannot sit inside an aggregate: rank in a subquery, then keep each file's best
    where = "" if only is None else f" AND c.file_path IN {IDS}"
    sql = (
        "SELECT file_path, MIN(rank), id, section_path FROM ("
        f"SELECT c.file_path, {BM25} AS rank, c.id, c.section_path FROM chunks_fts "
        f"JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?{where} "
        "ORDER BY rank) GROUP BY file_path"
    )
    params = (expression,) if only is None else (expression, json.dumps(list(only)))
    return conn.execute(sql, params).fetchall()


def matching_paths(conn: sqlite3.Connection, expression: str) -> set[str]:
    """The paths of the documents matching `expression`, unscored (bm25 is most of a
    match's cost)."""
    sql = (
        "SELECT DISTINCT c.file_path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH ?"
    )
    return {path for (path,) in conn.execute(sql, (expression,))}


def first_chunk_tags(conn: sqlite3.Connection) -> dict[str, tuple[int, str | None]]:
    """file path -> (id, tags) of its first chunk, for every document."""
    # SQLite takes the bare columns of a MIN() aggregate from the row holding the minimum
    sql = "SELECT file_path, MIN(chunk_index), id, tags FROM chunks GROUP BY file_path"
    return {path: (chunk_id, tags) for path, _, chunk_id, tags in conn.execute(sql)}


def joined_texts(conn: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, str]]:
    """(path, its chunks' contents joined by newlines, in order) of each of `paths`."""
    sql = (
        "SELECT file_path, group_concat(content, char(10)) FROM "
        f"(SELECT file_path, content FROM chunks WHERE file_path IN {IDS} "
        "ORDER BY file_path, chunk_index) GROUP BY file_path"
    )
    return conn.execute(sql, (json.dumps(list(paths)),)).fetchall()


def lead_texts(conn: sqlite3.Connection, paths: Sequence[str], chars: int) -> dict[str, str]:
    """path -> the first `chars` characters of its first chunk (the page's lead), for each
    of `paths` that has chunks."""
    sql = (
        "SELECT c.file_path, substr(c.content, 1, ?) FROM chunks c "
        f"WHERE c.file_path IN {IDS} AND c.chunk_index = "
        "(SELECT MIN(r.chunk_index) FROM chunk_rows r WHERE r.file_path = c.file_path)"
    )
    return dict(conn.execute(sql, (chars, json.dumps(list(paths)))).fetchall())


def categories(conn: sqlite3.Connection) -> list[str]:
    """The categories of the indexed chunks, sorted."""
    sql = "SELECT DISTINCT category FROM chunk_rows WHERE category IS NOT NULL ORDER BY 1"
    return [row[0] for row in conn.execute(sql)]


def database_file(conn: sqlite3.Connection) -> str | None:
    """The file `conn` reads ("main"), None for an in-memory database: what a
    per-process cache of an index's rows is keyed on, with its write generation."""
    files = [r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"]
    return files[0] if files and files[0] else None
