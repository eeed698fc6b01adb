"""The `files` table: what the index knows of every file it has seen."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from kenso_git.records import NamedTuple
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import is_undecodable
from kenso_git.store import schema
from kenso_git.store import vocab
from kenso_git.store.chunkreads import escape_like
from kenso_git.store.links import replace_links


class FileRow(NamedTuple):
    """What the index knows of one file (the `files` table). A named tuple: thousands are
    built per sync and sent between processes."""

    path: str
    blob_id: str
    status: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    seen_ns: int
    title: str | None = None
    category: str | None = None
    chunks: int = 0
    detail: str | None = None
    relations: str | None = None  # JSON [[raw_target, relation], ...]


def load_files(
    conn: sqlite3.Connection, paths: Collection[str] | None = None
) -> dict[str, FileRow]:
    """The files rows: all of them, or those of `paths` (a name that is not valid UTF-8,
    which git may list, has none: discovery never indexes it)."""
    columns = (
        "SELECT path, blob_id, status, size, mtime_ns, ctime_ns, inode, seen_ns, title, "
        "category, chunks, detail, relations FROM files"
    )
    if paths is None:
        rows = conn.execute(columns).fetchall()
    else:
        rows = [
            row
            for path in sorted(set(paths))
            if not is_undecodable(path)
            for row in conn.execute(f"{columns} WHERE path = ?", (path,))
        ]
    return {row[0]: FileRow(*row) for row in rows}


def indexed_blob_ids(
    conn: sqlite3.Connection, paths: Collection[str] | None = None
) -> dict[str, str]:
    """The blob id of each indexed file (all, or those of `paths`): what a caller that needs
    no other column reads, instead of every whole row (#32: at 100,000 docs they weigh)."""
    sql = "SELECT path, blob_id FROM files WHERE status = ?"
    if paths is None:
        return dict(conn.execute(sql, (FileStatus.INDEXED,)))
    wanted = json.dumps(sorted(p for p in set(paths) if not is_undecodable(p)), ensure_ascii=False)
    sql += " AND path IN (SELECT value FROM json_each(?))"
    return dict(conn.execute(sql, (FileStatus.INDEXED, wanted)))


def file_blob_ids(conn: sqlite3.Connection) -> dict[str, str]:
    """path -> blob id of every files row ("" where none was taken: a binary or oversized
    file): what comparing the index with a commit's tree reads, not every whole row with
    its raw links (#32)."""
    return {path: blob or "" for path, blob in conn.execute("SELECT path, blob_id FROM files")}


def indexed_inode(conn: sqlite3.Connection, path: str) -> int | None:
    """The inode of the file the index read `path`'s text from; None: not indexed."""
    row = conn.execute(
        "SELECT inode FROM files WHERE path = ? AND status = ?", (path, FileStatus.INDEXED)
    ).fetchone()
    return None if row is None else int(row[0])


def indexed_inodes(conn: sqlite3.Connection) -> dict[str, int]:
    """path -> inode of every indexed file (see `indexed_inode`)."""
    rows = conn.execute(
        "SELECT path, inode FROM files WHERE status = ?", (FileStatus.INDEXED,)
    ).fetchall()
    return {str(path): int(inode) for path, inode in rows}


# meta key: JSON [write generation, indexed rows, other rows]. Counting the rows reads
# every (wide) files row, 20-70 ms at 30x, on every no-change sync; every write that can
# change a row's status bumps the generation, so a matching one proves the counts current.
META_COUNTS = "file_counts"


def count_statuses(
    conn: sqlite3.Connection, *, exclude: Collection[str], meta: dict[str, str]
) -> tuple[dict[str, int], str | None]:
    """How many files rows outside `exclude` a sync reports `unchanged` and `skipped`, and,
    when they had to be counted, the META_COUNTS value that keeps them for the next sync."""
    generation = meta.get(schema.META_GENERATION, "")
    totals = _cached_totals(meta.get(META_COUNTS), generation)
    keep = None
    if totals is None:
        by_kind = dict.fromkeys((True, False), 0)
        for is_indexed_row, number in conn.execute(
            "SELECT status = ?, COUNT(*) FROM files GROUP BY 1", (FileStatus.INDEXED,)
        ):
            by_kind[bool(is_indexed_row)] += number
        totals = (by_kind[True], by_kind[False])
        keep = json.dumps([generation, *totals]) if generation else None
    counts = {"unchanged": totals[0], "skipped": totals[1]}
    for path in set(exclude):
        if is_undecodable(path):
            continue  # never a row (see load_files)
        row = conn.execute(
            "SELECT status = ? FROM files WHERE path = ?", (FileStatus.INDEXED, path)
        ).fetchone()
        if row is not None:
            counts["unchanged" if row[0] else "skipped"] -= 1
    return counts, keep


def _cached_totals(raw: str | None, generation: str) -> tuple[int, int] | None:
    if not raw or not generation:
        return None
    try:
        cached, indexed, other = json.loads(raw)
    except ValueError:
        return None
    return (int(indexed), int(other)) if cached == generation else None


def upsert_file(conn: sqlite3.Connection, row: FileRow) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO files(path, blob_id, status, size, mtime_ns, ctime_ns, inode, "
        "seen_ns, title, category, chunks, detail, relations) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        row,
    )


def delete_file(conn: sqlite3.Connection, path: str) -> None:
    """Forget a file: its chunks, its labels and words, its outgoing links and its files row."""
    conn.execute("DELETE FROM chunk_rows WHERE file_path = ?", (path,))
    conn.execute("DELETE FROM documents WHERE path = ?", (path,))  # after its chunks
    vocab.forget(conn, path)
    replace_links(conn, path, [])  # its outgoing links, and their paths no link names
    conn.execute("DELETE FROM files WHERE path = ?", (path,))


def stored_relations(
    conn: sqlite3.Connection, paths: Collection[str] | None = None
) -> list[tuple[str, str]]:
    """(path, relations JSON) of indexed files with relations (all, or those of `paths`)."""
    sql = "SELECT path, relations FROM files WHERE status = ? AND relations IS NOT NULL"
    if paths is None:
        rows = conn.execute(f"{sql} ORDER BY path", (FileStatus.INDEXED,)).fetchall()
    else:  # a sync of a few files reads their rows, not every file's relations
        wanted = json.dumps(sorted(set(paths)), ensure_ascii=False)
        rows = conn.execute(
            f"{sql} AND path IN (SELECT value FROM json_each(?)) ORDER BY path",
            (FileStatus.INDEXED, wanted),
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


def relations_after(conn: sqlite3.Connection, after: str, limit: int) -> list[tuple[str, str]]:
    """Up to `limit` (path, relations JSON) rows of indexed files with relations, in path
    order, from the first path after `after`: a whole index's relations read in pages, so
    a full links rebuild holds one page of them, not every file's (#32)."""
    rows = conn.execute(
        "SELECT path, relations FROM files WHERE status = ? AND relations IS NOT NULL "
        "AND path > ? ORDER BY path LIMIT ?",
        (FileStatus.INDEXED, after, limit),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def is_indexed(conn: sqlite3.Connection, path: str) -> bool:
    """Whether `path` is an indexed file."""
    row = conn.execute(
        "SELECT 1 FROM files WHERE path = ? AND status = ?", (path, FileStatus.INDEXED)
    ).fetchone()
    return row is not None


def blob_ids(conn: sqlite3.Connection) -> dict[str, str]:
    """path -> blob id of every files row."""
    return dict(conn.execute("SELECT path, blob_id FROM files"))


def indexed_documents(
    conn: sqlite3.Connection,
) -> list[tuple[str, int, int, str | None, str | None]]:
    """(path, size, mtime_ns, title, category) of every indexed file."""
    sql = "SELECT path, size, mtime_ns, title, category FROM files WHERE status = ?"
    return conn.execute(sql, (FileStatus.INDEXED,)).fetchall()


def indexed_title(conn: sqlite3.Connection, path: str) -> str | None:
    """The title recorded for `path`; None when blank, unknown, or the index has no files
    table."""
    try:
        row = conn.execute("SELECT title FROM files WHERE path = ?", (path,)).fetchone()
    except sqlite3.OperationalError:  # an index without the files table
        return None
    return row[0] if row is not None and row[0] else None


def relations_naming(conn: sqlite3.Connection, names: Collection[str]) -> list[str]:
    """Indexed files whose raw relations text contains one of `names` (file names): a
    superset (LIKE ignores ASCII case) of the files whose links may name those files."""
    if not names:
        return []
    like = [f"%{escape_like(json.dumps(n, ensure_ascii=False)[1:-1])}%" for n in names]
    where = " OR ".join("relations LIKE ? ESCAPE '\\'" for _ in like)
    sql = f"SELECT path FROM files WHERE status = ? AND relations IS NOT NULL AND ({where})"
    return [r[0] for r in conn.execute(sql, (FileStatus.INDEXED, *like))]


def indexed_paths(conn: sqlite3.Connection) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT path FROM files WHERE status = ?", (FileStatus.INDEXED,))
    ]


def first_paths(conn: sqlite3.Connection, limit: int) -> list[str]:
    """The first `limit` indexed paths in path order: a sample of what the index holds."""
    return [r[0] for r in conn.execute("SELECT path FROM files ORDER BY path LIMIT ?", (limit,))]
