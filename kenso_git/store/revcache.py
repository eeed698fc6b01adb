"""The revision cache (#29): what a search at another commit learnt, kept for the next one.

A small SQLite file beside the index (`revisions.db`, the index's own folder) holds, per
revision and view (the scope it was computed for), the docs that differ from the checkout's
index it was computed against (path -> blob id, or none when the doc is absent there) and
the texts of those blobs that the checkout does not hold, zlib-compressed and shared by blob
id between revisions. Nothing else: a revision costs its differing docs, never a copy of the
index. Bounded by count and bytes, the least recently used revision evicted first; a blob
goes with the last revision that needs it.

Every call is best-effort: a cache that cannot be opened, read or written (locked, corrupt,
a read-only folder) answers "nothing cached" and the search goes on without it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from kenso_git.records import NamedTuple
from kenso_git.repo.ignore import Signature
from kenso_git.repo.workspace import DB_DIRNAME
from kenso_git.store import wal
from kenso_git.store.claim import SQLITE_HEADER
from kenso_git.store.claim import read_head
from kenso_git.store.claim import user_tables

CACHE_FILE = "revisions.db"
_WAIT_MS = 2000  # another process writing the cache: wait this long, then go without it

_SCHEMA = """
CREATE TABLE IF NOT EXISTS revision (
    id INTEGER PRIMARY KEY,
    commit_id TEXT NOT NULL,
    view TEXT NOT NULL,
    ref TEXT NOT NULL,
    base TEXT NOT NULL,
    rules TEXT NOT NULL,
    used REAL NOT NULL,
    differing INTEGER NOT NULL,
    UNIQUE (commit_id, view)
);
CREATE TABLE IF NOT EXISTS revision_doc (
    rev INTEGER NOT NULL,
    path TEXT NOT NULL,
    blob TEXT,
    PRIMARY KEY (rev, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS revision_doc_blob ON revision_doc (blob);
CREATE TABLE IF NOT EXISTS blob (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS rules (
    digest TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
"""


# PRAGMA user_version of the cache file; another one is made again. 2: a file of version 1
# may hold a revision filtered with other ignore rules than the rule files it names (a
# server judged paths by rules read before an edit, and signed the files after it).
_VERSION = 2
_TABLES = ("revision", "revision_doc", "blob", "rules")


def _make_schema(conn: sqlite3.Connection) -> None:
    """Make the tables (a new file), or make them again (a file of another version: what it
    holds can all be made again from git)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != _VERSION:
            for table in _TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


class Delta(NamedTuple):
    """A cached revision: the docs that differ from the checkout index it was computed
    against (`base`), and the ignore-rule files it read with their signatures (`rules`)."""

    docs: dict[str, str | None]  # path -> blob id at the revision (None: absent there)
    rules: str  # JSON of the rule files read and their signatures then (`rules_json`)


class CachedRevision(NamedTuple):
    """One row of what `stats` shows."""

    commit: str
    ref: str
    view: str
    differing: int
    bytes: int  # compressed texts of its blobs (a blob shared with another counts in both)
    used: float  # Unix time it was last searched


class CacheUsage(NamedTuple):
    """The cache's revisions, most recently used first, and its totals and bounds."""

    path: str
    revisions: list[CachedRevision]
    bytes: int  # compressed texts held (each blob once)
    file_bytes: int  # the cache file on disk
    max_count: int
    max_bytes: int


class RevisionCache:
    """The cache file of one index (see the module docstring)."""

    def __init__(self, folder: Path, max_count: int, max_bytes: int) -> None:
        self.path = folder / CACHE_FILE
        self.max_count = max_count
        self.max_bytes = max_bytes

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.exists():
            return None
        try:
            if create and not self.path.exists():
                # private as the index is (its folder may be shared: `--db`)
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            if not self._ours():
                return None  # someone else's file of that name: searched without a cache
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=_WAIT_MS / 1000)
            # both only take on a new file: small pages, as a revision of ten docs holds a
            # few kilobytes (4 KB pages cost a new file 40 KB of empty tables)
            conn.execute("PRAGMA page_size = 1024")
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if conn.execute("PRAGMA user_version").fetchone()[0] != _VERSION:
                _make_schema(conn)
        except (OSError, sqlite3.Error):
            if create and self._replace_broken():
                return self._connect(create=False)  # made again: nothing in it was needed
            return None
        return conn

    def _ours(self) -> bool:
        """Whether the file at the cache's name may be used, made again or thrown away: in
        kenso-git's own `.kenso/` folder always; in a folder an index named by `--db`
        shares with others, only when it is empty or an SQLite file of the cache's tables
        alone (a damaged one there is not ours to throw away)."""
        if self.path.parent.name == DB_DIRNAME:
            return True
        head = read_head(self.path)
        if head != SQLITE_HEADER:
            return head == b""  # empty: made just now; unreadable or anything else: not ours
        try:
            probe = sqlite3.connect(wal.file_uri(self.path, "ro"), uri=True)
            try:
                names = user_tables(probe)
            finally:
                probe.close()
        except sqlite3.Error:
            return False
        return set(names) <= set(_TABLES)

    def _replace_broken(self) -> bool:
        """A cache file that is not a database is thrown away (it holds nothing that cannot
        be made again from git) and made again, empty; True when it was."""
        try:
            probe = sqlite3.connect(self.path)
            try:
                probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return False  # a database, busy or locked: leave it alone
            except sqlite3.DatabaseError:
                pass
            finally:
                probe.close()
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except (OSError, sqlite3.Error):
            return False
        return True

    def delta(self, commit: str, view: str, base: str) -> Delta | None:
        """The cached docs of `commit` in `view` when they were computed against `base`."""
        conn = self._connect(create=False)
        if conn is None:
            return None
        try:
            row = conn.execute(
                "SELECT r.base, s.data FROM revision r JOIN rules s ON s.digest = r.rules "
                "WHERE r.commit_id = ? AND r.view = ?",
                (commit, view),
            ).fetchone()
            if row is None or row[0] != base:
                return None
            docs = dict(
                conn.execute(
                    "SELECT d.path, d.blob FROM revision_doc d JOIN revision r ON r.id = d.rev "
                    "WHERE r.commit_id = ? AND r.view = ?",
                    (commit, view),
                ).fetchall()
            )
            return Delta(docs, zlib.decompress(row[1]).decode())
        except (sqlite3.Error, zlib.error, UnicodeDecodeError):
            return None
        finally:
            conn.close()

    def blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The texts of those of `ids` the cache holds."""
        wanted = sorted(set(ids))
        conn = self._connect(create=False) if wanted else None
        if conn is None:
            return {}
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                for blob, data in conn.execute(
                    f"SELECT id, data FROM blob WHERE id IN ({marks})", part
                ):
                    found[blob] = zlib.decompress(data)
        except (sqlite3.Error, zlib.error):
            return {}
        finally:
            conn.close()
        return found

    def remember(
        self,
        commit: str,
        view: str,
        ref: str,
        base: str,
        delta: Delta,
        texts: dict[str, bytes],
    ) -> None:
        """Keep (or refresh) `commit`'s docs in `view` and the texts of their blobs, mark it
        used now, and evict down to the bounds."""
        conn = self._connect(create=True)
        if conn is None:
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            _drop(conn, commit, view)
            import hashlib  # not at the top: the search path loads no OpenSSL

            # the rule files read are the same for most revisions: kept once, compressed
            rules = hashlib.sha1(delta.rules.encode(), usedforsecurity=False).hexdigest()
            conn.execute(
                "INSERT OR IGNORE INTO rules (digest, data) VALUES (?, ?)",
                (rules, zlib.compress(delta.rules.encode(), 9)),
            )
            rev = conn.execute(
                "INSERT INTO revision (commit_id, view, ref, base, rules, used, differing) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (commit, view, ref, base, rules, time.time(), len(delta.docs)),
            ).lastrowid
            conn.executemany(
                "INSERT INTO revision_doc (rev, path, blob) VALUES (?, ?, ?)",
                [(rev, path, blob) for path, blob in sorted(delta.docs.items())],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO blob (id, data) VALUES (?, ?)",
                [(blob, zlib.compress(data, 6)) for blob, data in sorted(texts.items())],
            )
            _evict(conn, self.max_count, self.max_bytes)
            conn.execute("COMMIT")
            conn.execute("PRAGMA incremental_vacuum")
        except sqlite3.Error:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        finally:
            conn.close()

    def touch(self, commit: str, view: str) -> None:
        """Mark `commit` in `view` used now (least recently used goes first)."""
        conn = self._connect(create=False)
        if conn is None:
            return
        with suppress(sqlite3.Error):
            conn.execute(
                "UPDATE revision SET used = ? WHERE commit_id = ? AND view = ?",
                (time.time(), commit, view),
            )
        conn.close()

    def usage(self) -> CacheUsage:
        """What the cache holds, for `stats`."""
        rows: list[CachedRevision] = []
        held = 0
        conn = self._connect(create=False)
        if conn is not None:
            try:
                rows = [
                    CachedRevision(*row)
                    for row in conn.execute(
                        "SELECT r.commit_id, r.ref, r.view, r.differing, "
                        "(SELECT coalesce(sum(length(b.data)), 0) FROM blob b WHERE b.id IN "
                        " (SELECT d.blob FROM revision_doc d WHERE d.rev = r.id)), r.used "
                        "FROM revision r ORDER BY r.used DESC"
                    )
                ]
                held = conn.execute("SELECT coalesce(sum(length(data)), 0) FROM blob").fetchone()[0]
            except sqlite3.Error:
                rows, held = [], 0
            finally:
                conn.close()
        size = self.path.stat().st_size if self.path.exists() else 0
        return CacheUsage(str(self.path), rows, held, size, self.max_count, self.max_bytes)


def _evict(conn: sqlite3.Connection, max_count: int, max_bytes: int) -> None:
    """Drop the least recently used revisions until both bounds hold (the newest one is
    kept even when it alone is over `max_bytes`: it is the one being searched), then the
    blobs no revision needs."""
    order = [
        (c, v) for c, v in conn.execute("SELECT commit_id, view FROM revision ORDER BY used DESC")
    ]
    keep = order[: max(1, max_count)]
    for commit, view in order[len(keep) :]:
        _drop(conn, commit, view)
    _orphans(conn)
    while len(keep) > 1:
        held = conn.execute("SELECT coalesce(sum(length(data)), 0) FROM blob").fetchone()[0]
        if held <= max_bytes:
            break
        commit, view = keep.pop()
        _drop(conn, commit, view)
        _orphans(conn)


def _drop(conn: sqlite3.Connection, commit: str, view: str) -> None:
    conn.execute(
        "DELETE FROM revision_doc WHERE rev IN "
        "(SELECT id FROM revision WHERE commit_id = ? AND view = ?)",
        (commit, view),
    )
    conn.execute("DELETE FROM revision WHERE commit_id = ? AND view = ?", (commit, view))


def _orphans(conn: sqlite3.Connection) -> None:
    conn.execute(
        "DELETE FROM blob WHERE NOT EXISTS (SELECT 1 FROM revision_doc d WHERE d.blob = blob.id)"
    )
    conn.execute(
        "DELETE FROM rules WHERE NOT EXISTS (SELECT 1 FROM revision r WHERE r.rules = rules.digest)"
    )


def rules_json(signatures: dict[str, Signature]) -> str:
    """The ignore-rule files a delta was computed with, as stored (see `Delta.rules`)."""
    return json.dumps(sorted(signatures.items()), separators=(",", ":"))


def rules_from_json(text: str) -> dict[str, Signature]:
    """`rules_json`'s signatures back."""
    try:
        items = json.loads(text)
    except ValueError:
        return {}
    return {path: (None if sig is None else (sig[0], sig[1], sig[2])) for path, sig in items}
