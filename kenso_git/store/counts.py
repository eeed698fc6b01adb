"""What an agent's scope shows of the index: its documents, chunks and links, counted.

`index_state`, `health_check` and `reindex` answer with these counts when an agent scope
hides some documents (#27: a count of every indexed doc says how many are hidden), and
`GET /events` signals a change only when the digest of the visible documents changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kenso_git.records import NamedTuple
from kenso_git.repo.status import FileStatus


class ScopedCounts(NamedTuple):
    """The documents and chunks a scope shows, and the links both of whose ends it shows."""

    documents: int
    chunks: int
    links: int


def scoped_counts(
    conn: sqlite3.Connection, shows: Callable[[str], bool], names: Callable[[str], bool]
) -> ScopedCounts:
    """Count the documents `shows` lets through and the links from one of them to a path
    `names` lets through (a link's target need not be an indexed doc). Call it inside one
    read transaction: the callables may read the index too."""
    documents = chunks = 0
    # the rows are read as they come, never listed: at 100,000 docs the list of every
    # link's two paths was ~170 MB of a server's first health_check while a hook's sync ran
    # (#32)
    for path, number in conn.execute("SELECT file_path, COUNT(*) FROM chunks GROUP BY file_path"):
        if shows(path):
            documents += 1
            chunks += int(number)
    pairs = conn.execute(
        "SELECT s.path, t.path FROM link_rows JOIN paths AS s ON s.id = source_id "
        "JOIN paths AS t ON t.id = target_id"
    )
    links = sum(1 for source, target in pairs if shows(source) and names(target))
    return ScopedCounts(documents, chunks, links)


def indexed_blobs(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, blob id) of every indexed file, by path."""
    rows = conn.execute(
        "SELECT path, blob_id FROM files WHERE status = ? ORDER BY path", (FileStatus.INDEXED,)
    ).fetchall()
    return [(str(path), str(blob)) for path, blob in rows]
