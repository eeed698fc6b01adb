"""The links: resolved `relates_to` edges and inline Markdown links of each source file.

Each path is stored once, in `paths`; a link row holds the two path ids (store/schema.py).
A path no link names any more is deleted with its last link (`_forget`), so `paths` holds
exactly the ends of the links, as a fresh ingest writes them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from kenso_git.records import NamedTuple
from kenso_git.repo.status import FileStatus


class LinkRow(NamedTuple):
    target_path: str
    relation_type: str
    raw_target: str


# (source path, target path, relation type, raw target): what `add_links` takes, a plain
# tuple (a NamedTuple per link cost 0.6 s of the 166k of one doc, #14)
Link = tuple[str, str, str, str]


_ID = "(SELECT id FROM paths WHERE path = {})"
# The path ids first: the ends go in as one sorted array of distinct strings (read from
# the link rows with a UNION, 166k ends cost 0.7 s of SQL; so, 0.1 s).
_ADD_PATHS = "INSERT OR IGNORE INTO paths(path) SELECT value FROM json_each(?)"
_PATH_IDS = "SELECT path, id FROM paths WHERE path IN (SELECT value FROM json_each(?))"
# Then the links, in (source, target, relation) id order: 133k links of one 2 MB file cost
# 1.3 s of CPU as executemany in entry order, 0.6 s so (sorted rows extend the primary key
# at its end instead of all over it). The entry index breaks ties, so INSERT OR IGNORE
# still keeps the first raw form of a duplicate; readers never depend on row order.
_ADD_JSON = (
    "INSERT OR IGNORE INTO link_rows(source_id, target_id, relation_type, raw_target) "
    "SELECT s.id, t.id, json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]') "
    "FROM json_each(?) j JOIN paths s ON s.path = json_extract(j.value, '$[0]') "
    "JOIN paths t ON t.path = json_extract(j.value, '$[1]') ORDER BY 1, 2, 3, j.key"
)
# Up to this many links, they are sorted here by the ids of their ends and bound as they
# are: half the time of taking them apart from JSON (a cold ingest of the docs corpus
# links 5,800 in one call: 29 -> 15 ms; a full rebuild links 2,000 files a call). Past
# it, the sort in Python cost more than it saved (133k links: 0.61 s in SQL, 0.66 s so).
SORT_HERE_UP_TO = 20_000
_ADD = (
    "INSERT OR IGNORE INTO link_rows(source_id, target_id, relation_type, raw_target) "
    "VALUES (?, ?, ?, ?)"
)
# A `paths` row no link names any more.
_UNUSED = (
    "NOT EXISTS (SELECT 1 FROM link_rows WHERE source_id = paths.id) "
    "AND NOT EXISTS (SELECT 1 FROM link_rows WHERE target_id = paths.id)"
)
# The paths among the ids of ?1 that no link names any more.
_FORGET = f"DELETE FROM paths WHERE id IN (SELECT value FROM json_each(?1)) AND {_UNUSED}"


def _forget(conn: sqlite3.Connection, ids: Iterable[int]) -> None:
    wanted = sorted(set(ids))
    if wanted:
        conn.execute(_FORGET, (json.dumps(wanted),))


def replace_links(conn: sqlite3.Connection, source: str, links: Iterable[LinkRow]) -> None:
    """Make the outgoing links of `source` equal to `links`."""
    add_links(conn, [(source, *link) for link in links], replacing=[source])


def clear_links(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM link_rows")
    conn.execute("DELETE FROM paths")


def clear_links_except(conn: sqlite3.Connection, relation_type: str) -> None:
    """Delete every link but those of `relation_type`."""
    conn.execute("DELETE FROM link_rows WHERE relation_type != ?", (relation_type,))
    conn.execute(f"DELETE FROM paths WHERE {_UNUSED}")


def links_of_type(conn: sqlite3.Connection, relation_type: str) -> set[tuple[str, str]]:
    """The (source, target) pairs of every link of `relation_type`."""
    sql = "SELECT source_path, target_path FROM links WHERE relation_type = ?"
    return {(source, target) for source, target in conn.execute(sql, (relation_type,))}


def links_of_type_from(
    conn: sqlite3.Connection, relation_type: str, sources: Iterable[str]
) -> set[tuple[str, str]]:
    """The (source, target) pairs of the links of `relation_type` out of `sources`."""
    wanted = json.dumps(sorted(set(sources)), ensure_ascii=False)
    sql = (
        "SELECT s.path, t.path FROM json_each(?) j JOIN paths s ON s.path = j.value "
        "JOIN link_rows l ON l.source_id = s.id AND l.relation_type = ? "
        "JOIN paths t ON t.id = l.target_id"
    )
    return {(source, target) for source, target in conn.execute(sql, (wanted, relation_type))}


def drop_links_of_unrelated(conn: sqlite3.Connection, relation_type: str) -> None:
    """Delete the links of `relation_type` out of files that are not indexed with raw
    entries (`files.relations`) any more, and the paths no link names any more."""
    conn.execute(
        "DELETE FROM link_rows WHERE relation_type = ?1 AND source_id IN (SELECT id FROM paths "
        "WHERE path NOT IN (SELECT path FROM files WHERE status = ?2 AND relations IS NOT NULL))",
        (relation_type, FileStatus.INDEXED),
    )
    conn.execute(f"DELETE FROM paths WHERE {_UNUSED}")


def add_links(
    conn: sqlite3.Connection,
    rows: Iterable[Link],
    *,
    replacing: Iterable[str] = (),
) -> None:
    """Insert `rows` (`Link`: source, target, relation, raw target) without touching the
    sources' other links (but those of the sources `replacing`, deleted first): one
    statement for all of them, as one sync may re-link one 2 MB doc of entries."""
    freed: list[int] = []
    for source in replacing:
        # the ends of its old links (no RETURNING: SQLite 3.34 has none)
        freed.extend(
            r[0]
            for r in conn.execute(
                "SELECT l.target_id FROM paths p JOIN link_rows l ON l.source_id = p.id "
                "WHERE p.path = ?1 UNION ALL SELECT id FROM paths WHERE path = ?1",
                (source,),
            )
        )
        conn.execute(f"DELETE FROM link_rows WHERE source_id = {_ID.format('?')}", (source,))
    rows = list(rows)
    if rows:
        ends = {row[0] for row in rows} | {row[1] for row in rows}
        wanted = json.dumps(sorted(ends), ensure_ascii=False)
        conn.execute(_ADD_PATHS, (wanted,))
        if len(rows) > SORT_HERE_UP_TO:
            conn.execute(_ADD_JSON, (json.dumps(rows, ensure_ascii=False),))
        else:
            ids: dict[str, int] = dict(conn.execute(_PATH_IDS, (wanted,)))
            keyed = sorted(
                (ids[source], ids[target], relation, entry, raw)
                for entry, (source, target, relation, raw) in enumerate(rows)
            )
            conn.executemany(_ADD, [(s, t, relation, raw) for s, t, relation, _, raw in keyed])
    _forget(conn, freed)


def drop_links(
    conn: sqlite3.Connection, relation_type: str, pairs: Iterable[tuple[str, str]]
) -> None:
    """Delete the links of `relation_type` between the (source, target) pairs."""
    wanted = json.dumps(sorted(pairs), ensure_ascii=False)
    if wanted == "[]":
        return
    found = conn.execute(
        "SELECT s.id, t.id FROM json_each(?) j "
        "JOIN paths s ON s.path = json_extract(j.value, '$[0]') "
        "JOIN paths t ON t.path = json_extract(j.value, '$[1]')",
        (wanted,),
    ).fetchall()
    conn.executemany(
        "DELETE FROM link_rows WHERE source_id = ? AND target_id = ? AND relation_type = ?",
        [(source_id, target_id, relation_type) for source_id, target_id in found],
    )
    freed = [end for pair in found for end in pair]
    _forget(conn, freed)
