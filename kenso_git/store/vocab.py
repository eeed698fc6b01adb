"""The typo-correction vocabulary as a table: one (word, document id) row per word a
document lends the correction (`text.titlewords`), indexed by word and by word length.

The first zero-hit search of a process used to load every document's words and build the
dictionary in Python (0.6 s and +79 MB at 48,600 docs, #32); `search.ranked.fuzzy` now asks this
table per query term: is the word known (and from which documents), and which words have
a length the term could match. The writer keeps it beside `doc_words` in the same
transaction (`apply`, from a document's words before and after), and seals it with the
write generation it matches (`seal`). A generation it was not sealed at means a writer
that does not know the table wrote since: readers then build the dictionary as before,
and the next writer of this version fills the table again from the documents' words
(`ensure`). Outside the versioned schema, like `doc_words`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from kenso_git.store import docwords
from kenso_git.store import schema
from kenso_git.text.titlewords import WordSplitter

TABLE = "vocab_rows"  # (word, doc): which documents lend each word
DOCS = "vocab_docs"  # each lending document's path once, by a small integer id
WORDS = "vocab_words"  # each word once, with its length (indexed): the candidates of a term
LEGACY = ("vocab",)  # the first form, (word, path) rows: 91 MB of 707 at 30x the corpus (#26)
META_SEALED = "vocab_generation"  # the write generation the tables were last made equal at
# Two tables: a length index over the 26,000 (word, document) rows of the docs corpus cost
# its cold ingest 70 ms of writer CPU; over its 2,800 distinct words, a tenth of that. The
# rows name documents by id: a path repeated in every row cost #26's index size target.
DDL = (
    f"CREATE TABLE IF NOT EXISTS {DOCS} (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)",
    f"CREATE TABLE IF NOT EXISTS {TABLE} (word TEXT NOT NULL, doc INTEGER NOT NULL, "
    "PRIMARY KEY (word, doc)) WITHOUT ROWID",
    f"CREATE TABLE IF NOT EXISTS {WORDS} (word TEXT PRIMARY KEY, len INTEGER NOT NULL) "
    "WITHOUT ROWID",
    f"CREATE INDEX IF NOT EXISTS {WORDS}_len ON {WORDS}(len)",
)
_DOC_ID = f"(SELECT id FROM {DOCS} WHERE path = ?)"
ADD_EVERY = 65_536  # rows `write_words` puts aside before inserting them (see `add`)
_ADD_WORD = f"INSERT OR IGNORE INTO {WORDS}(word, len) VALUES (?, ?)"
_DROP_WORD = (
    f"DELETE FROM {WORDS} WHERE word = ?1 AND NOT EXISTS (SELECT 1 FROM {TABLE} WHERE word = ?1)"
)
_WORDS_SQL = "SELECT DISTINCT title, doc_title, tags, category, file_path FROM chunks"


def ensure(conn: sqlite3.Connection) -> None:
    """Create the table, or fill it again when it is not sealed at the index's generation
    (new, or a writer that does not know it wrote since); inside the write transaction."""
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)",
            (META_SEALED, schema.META_GENERATION),
        ).fetchall()
    )
    (exists,) = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)",
        (TABLE, DOCS, WORDS),
    ).fetchone()
    if exists == 3 and meta.get(META_SEALED) == meta.get(schema.META_GENERATION, ""):
        return
    for legacy in LEGACY:
        conn.execute(f"DROP TABLE IF EXISTS {legacy}")
    for statement in DDL:
        conn.execute(statement)
    conn.execute(f"DELETE FROM {TABLE}")
    conn.execute(f"DELETE FROM {DOCS}")
    conn.execute(f"DELETE FROM {WORDS}")
    versions = dict(conn.execute("SELECT path, blob_id FROM files"))
    kept = docwords.read(conn, None)
    words = document_words(conn, None, versions)
    for path, found in sorted(words.items()):
        if kept.get(path) != (versions[path], " ".join(found)):
            docwords.write(conn, path, versions[path], found)  # what `write_words` diffs from
    add(conn, [(w, p) for p, found in words.items() for w in set(found)])


def write_words(
    conn: sqlite3.Connection,
    path: str,
    blob_id: str,
    words: Sequence[str],
    *,
    new: bool = False,
    later: list[tuple[str, str]] | None = None,
) -> None:
    """Record `path`'s words, made from the file `blob_id`, in `doc_words` and the table.

    `new`: the index holds nothing of `path` yet (no row to diff from). `later`: the rows
    to insert are appended there, for one sorted insert of a whole run's (`add`): a cold
    ingest's 40,000 rows cost a third as much that way as inserted document by document.
    """
    row = None
    if not new:
        row = conn.execute(f"SELECT words FROM {docwords.TABLE} WHERE path = ?", (path,)).fetchone()
    docwords.write(conn, path, blob_id, words)
    apply(conn, path, row[0].split() if row else (), words, later=later)


def add(conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> None:
    """Insert the (word, path) rows `write_words` put aside, in key order."""
    paths = sorted({p for _, p in pairs})
    conn.executemany(f"INSERT OR IGNORE INTO {DOCS}(path) VALUES (?)", [(p,) for p in paths])
    ids = dict(
        conn.execute(
            f"SELECT path, id FROM {DOCS} WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(paths),),
        )
    )
    # in key order, each word's documents gathered first: a third less time than sorting
    # the (word, id) pairs themselves (26,000 of them in a cold ingest of the docs corpus)
    by_word: dict[str, list[int]] = {}
    for w, p in pairs:
        by_word.setdefault(w, []).append(ids[p])
    words = sorted(by_word)
    rows = [(w, doc) for w in words for doc in sorted(by_word[w])]
    conn.executemany(f"INSERT OR IGNORE INTO {TABLE}(word, doc) VALUES (?, ?)", rows)
    conn.executemany(_ADD_WORD, [(w, len(w)) for w in words])
    pairs.clear()


def forget(conn: sqlite3.Connection, path: str) -> None:
    """Drop `path`'s words from `doc_words` and the table (no-op without them)."""
    try:
        row = conn.execute(f"SELECT words FROM {docwords.TABLE} WHERE path = ?", (path,)).fetchone()
        if row is not None:
            apply(conn, path, row[0].split(), ())
            conn.execute(f"DELETE FROM {DOCS} WHERE path = ?", (path,))
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
    docwords.forget(conn, path)


def apply(
    conn: sqlite3.Connection,
    path: str,
    before: Iterable[str],
    after: Iterable[str],
    *,
    later: list[tuple[str, str]] | None = None,
) -> None:
    """Make `path`'s rows its words `after` (they were `before`); with `later`, the rows
    to insert are appended there (see `add`)."""
    old, new = set(before), set(after)
    gone = sorted(old - new)
    if gone:
        conn.executemany(
            f"DELETE FROM {TABLE} WHERE word = ? AND doc = {_DOC_ID}", [(w, path) for w in gone]
        )
        conn.executemany(_DROP_WORD, [(w,) for w in gone])
    added = [(w, path) for w in new - old]
    if later is not None:
        later.extend(added)
        if len(later) >= ADD_EVERY:  # bounded: 100,000 docs lend ~1.6 M rows
            add(conn, later)
    elif added:
        add(conn, added)


def seal(conn: sqlite3.Connection) -> None:
    """Record that the table matches the index at its current generation (end of a write)."""
    conn.execute(
        "INSERT INTO meta(key, value) SELECT ?, value FROM meta WHERE key = ? "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (META_SEALED, schema.META_GENERATION),
    )


def is_empty(conn: sqlite3.Connection) -> bool:
    """Whether the vocabulary holds no word."""
    return bool(conn.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {WORDS})").fetchone()[0])


def is_current(conn: sqlite3.Connection) -> bool:
    """Whether the table can answer for this index (sealed at its generation)."""
    try:
        row = conn.execute(
            "SELECT (SELECT value FROM meta WHERE key = ?) = (SELECT value FROM meta WHERE key = ?)"
            f", EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{TABLE}')",
            (META_SEALED, schema.META_GENERATION),
        ).fetchone()
    except sqlite3.OperationalError:
        return False
    return bool(row[0]) and bool(row[1])


def owners(conn: sqlite3.Connection, word: str) -> list[str]:
    """The documents `word` comes from (none: not a vocabulary word)."""
    sql = f"SELECT d.path FROM {TABLE} v JOIN {DOCS} d ON d.id = v.doc WHERE v.word = ?"
    return [r[0] for r in conn.execute(sql, (word,))]


def words_of_length(conn: sqlite3.Connection, low: int, high: int) -> list[str]:
    """The distinct words of `low` to `high` characters, in order (the length index)."""
    sql = f"SELECT word FROM {WORDS} WHERE len BETWEEN ? AND ? ORDER BY word"
    return [r[0] for r in conn.execute(sql, (low, high))]


def has_more_words_than(conn: sqlite3.Connection, limit: int) -> bool:
    """Whether the vocabulary holds more than `limit` distinct words (reads limit + 1)."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM {WORDS} LIMIT ?)"
    return int(conn.execute(sql, (limit + 1,)).fetchone()[0]) > limit


def document_words(
    conn: sqlite3.Connection, paths: Sequence[str] | None, versions: Mapping[str, str]
) -> dict[str, tuple[str, ...]]:
    """Each document's words (of every document, or of `paths`), sorted, each word one
    shared string. From `doc_words` where its row was made from the file's blob; else from
    the chunk rows, streamed (an index written before that table, or by a writer that does
    not know it)."""
    split = WordSplitter()
    out: dict[str, tuple[str, ...]] = {}
    for path, (blob, words) in docwords.read(conn, paths).items():
        if versions.get(path) == blob:
            out[path] = split.stored(words)
    wanted = list(versions) if paths is None else paths
    missing = [p for p in wanted if p not in out]
    if not missing:
        return out
    if paths is None and len(missing) == len(wanted):
        rows = conn.execute(_WORDS_SQL)  # an index written before the table: all of them
    else:
        sql = _WORDS_SQL + " WHERE file_path IN (SELECT value FROM json_each(?))"
        rows = conn.execute(sql, (json.dumps(missing),))
    for path, found in _chunk_words(rows, split).items():
        out[path] = tuple(sorted(found))
    return out


def _chunk_words(
    rows: Iterable[tuple[str | None, str | None, str | None, str | None, str]],
    split: WordSplitter,
) -> dict[str, set[str]]:
    """Each document's title, tag and category words, from its chunk rows (what
    `text.titlewords.document_words` gives the writer)."""
    per_doc: dict[str, set[str]] = {}
    for title, doc_title, tags, category, path in rows:
        found = per_doc.setdefault(path, set())
        for text in (title, doc_title, category):
            if text:
                found.update(split.text(text))
        if tags:
            found.update(split.tags_json(tags))
    return per_doc
