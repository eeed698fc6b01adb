"""The typo-correction vocabulary as a table: one (word, document) row per word a document
lends the correction (`text.titlewords`), indexed by word and by word length.

The first zero-hit search of a process used to load every document's words and build the
dictionary in Python (0.6 s and +79 MB at 48,600 docs, #32); `search.fuzzy` now asks this
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

TABLE = "vocab"
META_SEALED = "vocab_generation"  # the write generation the table was last made equal at
DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (word TEXT NOT NULL, path TEXT NOT NULL, "
    "PRIMARY KEY (word, path)) WITHOUT ROWID",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_len ON {TABLE}(length(word), word)",
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
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    if exists and meta.get(META_SEALED) == meta.get(schema.META_GENERATION, ""):
        return
    for statement in DDL:
        conn.execute(statement)
    conn.execute(f"DELETE FROM {TABLE}")
    versions = dict(conn.execute("SELECT path, blob_id FROM files"))
    kept = docwords.read(conn, None)
    words = document_words(conn, None, versions)
    for path, found in sorted(words.items()):
        if kept.get(path) != (versions[path], " ".join(found)):
            docwords.write(conn, path, versions[path], found)  # what `write_words` diffs from
    conn.executemany(
        f"INSERT INTO {TABLE}(word, path) VALUES (?, ?)",
        sorted((w, p) for p, found in words.items() for w in set(found)),
    )


def write_words(conn: sqlite3.Connection, path: str, blob_id: str, words: Sequence[str]) -> None:
    """Record `path`'s words, made from the file `blob_id`, in `doc_words` and the table."""
    row = conn.execute(f"SELECT words FROM {docwords.TABLE} WHERE path = ?", (path,)).fetchone()
    docwords.write(conn, path, blob_id, words)
    apply(conn, path, row[0].split() if row else (), words)


def forget(conn: sqlite3.Connection, path: str) -> None:
    """Drop `path`'s words from `doc_words` and the table (no-op without them)."""
    try:
        row = conn.execute(f"SELECT words FROM {docwords.TABLE} WHERE path = ?", (path,)).fetchone()
        if row is not None:
            apply(conn, path, row[0].split(), ())
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
    docwords.forget(conn, path)


def apply(conn: sqlite3.Connection, path: str, before: Iterable[str], after: Iterable[str]) -> None:
    """Make `path`'s rows its words `after` (they were `before`)."""
    old, new = set(before), set(after)
    conn.executemany(
        f"DELETE FROM {TABLE} WHERE word = ? AND path = ?", [(w, path) for w in old - new]
    )
    conn.executemany(
        f"INSERT OR IGNORE INTO {TABLE}(word, path) VALUES (?, ?)",
        [(w, path) for w in sorted(new - old)],
    )


def seal(conn: sqlite3.Connection) -> None:
    """Record that the table matches the index at its current generation (end of a write)."""
    conn.execute(
        "INSERT INTO meta(key, value) SELECT ?, value FROM meta WHERE key = ? "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (META_SEALED, schema.META_GENERATION),
    )


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
    return [r[0] for r in conn.execute(f"SELECT path FROM {TABLE} WHERE word = ?", (word,))]


def words_of_length(conn: sqlite3.Connection, low: int, high: int) -> list[str]:
    """The distinct words of `low` to `high` characters, in order (the length index)."""
    sql = f"SELECT DISTINCT word FROM {TABLE} WHERE length(word) BETWEEN ? AND ? ORDER BY 1"
    return [r[0] for r in conn.execute(sql, (low, high))]


def has_more_words_than(conn: sqlite3.Connection, limit: int) -> bool:
    """Whether the vocabulary holds more than `limit` distinct words (reads limit + 1)."""
    sql = f"SELECT count(*) FROM (SELECT DISTINCT word FROM {TABLE} LIMIT ?)"
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
