"""The last commit of each indexed document (#29): kept by the writers, read with each hit.

One row per document: the blob id it was worked out for, the commit that made the path
that blob (`commit_id`), and the HEAD it was asked at. `commit_id` is NULL while the blob
is in no commit of HEAD (the work tree's own edit: the doc is `uncommitted`), and '' when
git's history did not say within the time allowed. A row whose blob is not the file's
stands for nothing. Not part of the versioned schema, like `doc_words`: a writer creates
it, and a reader of an index without it finds no rows.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from collections.abc import Iterable

from kenso_git.records import NamedTuple

TABLE = "doc_commits"
DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (path TEXT PRIMARY KEY, blob_id TEXT NOT NULL, "
    "commit_id TEXT, time INTEGER, subject TEXT, head TEXT) WITHOUT ROWID",
    f"CREATE INDEX IF NOT EXISTS idx_{TABLE}_open ON {TABLE}(head) WHERE commit_id IS NULL "
    "OR commit_id = ''",
)
_PATHS = "(SELECT value FROM json_each(?))"


class LastCommit(NamedTuple):
    """What a hit says of its document's age: a commit, or that it is uncommitted."""

    commit_id: str | None  # None: uncommitted
    time: int | None
    subject: str | None

    def to_dict(self) -> dict[str, object]:
        if self.commit_id is None:
            return {"uncommitted": True}
        return {"last_commit": {"id": self.commit_id, "time": self.time, "subject": self.subject}}


def ensure(conn: sqlite3.Connection) -> bool:
    """Create the table (in the caller's write transaction); True when it was missing."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    for statement in DDL:
        conn.execute(statement)
    return found is None


def open_paths(conn: sqlite3.Connection, head: str | None) -> list[str]:
    """Documents whose row was left open at another HEAD: uncommitted, or not found."""
    sql = f"SELECT path FROM {TABLE} WHERE (commit_id IS NULL OR commit_id = '') AND head IS NOT ?"
    return [row[0] for row in conn.execute(sql, (head,))]


def all_paths(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute(f"SELECT path FROM {TABLE}")]


def write(
    conn: sqlite3.Connection,
    rows: Iterable[tuple[str, str, str | None, int | None, str | None, str | None]],
) -> None:
    """Record (path, blob id, commit id or None, time, subject, head) rows."""
    conn.executemany(
        f"INSERT OR REPLACE INTO {TABLE}(path, blob_id, commit_id, time, subject, head) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )


def forget(conn: sqlite3.Connection, paths: Collection[str]) -> None:
    if paths:
        conn.execute(f"DELETE FROM {TABLE} WHERE path IN {_PATHS}", (json.dumps(list(paths)),))


def read(conn: sqlite3.Connection, paths: Collection[str]) -> dict[str, LastCommit]:
    """path -> its last commit (or uncommitted), for the paths whose row is of the blob the
    index holds; paths without one (unknown, or an index older than the table) are absent."""
    if not paths:
        return {}
    sql = (
        f"SELECT c.path, c.commit_id, c.time, c.subject FROM {TABLE} c "
        f"JOIN files f ON f.path = c.path AND f.blob_id = c.blob_id "
        f"WHERE c.path IN {_PATHS} AND (c.commit_id IS NULL OR c.commit_id != '')"
    )
    try:
        rows = conn.execute(sql, (json.dumps(list(paths)),)).fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return {}
    return {path: LastCommit(commit, when, subject) for path, commit, when, subject in rows}
