"""The `links` table: resolved `relates_to` edges of each source file."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from typing import NamedTuple


class LinkRow(NamedTuple):
    target_path: str
    relation_type: str
    raw_target: str


# One statement for all of a file's links, in (target, relation) order: 133k links of one
# 2 MB file cost 1.3 s of CPU as executemany in entry order, 0.6 s so (each executed row is
# a statement of its own, which updates sqlite_sequence; sorted rows extend the UNIQUE and
# target indexes at their end instead of all over them). The sort is stable, so INSERT OR
# IGNORE still keeps the first raw form of a duplicate; readers never depend on row order.
_INSERT = (
    "INSERT OR IGNORE INTO links(source_path, target_path, relation_type, raw_target, "
    "created_at) SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), "
    "json_extract(value, '$[2]'), ? FROM json_each(?)"
)


def replace_links(conn: sqlite3.Connection, source: str, links: Iterable[LinkRow]) -> None:
    """Make the outgoing links of `source` equal to `links`."""
    conn.execute("DELETE FROM links WHERE source_path = ?", (source,))
    rows = sorted(links, key=lambda link: (link.target_path, link.relation_type))
    if not rows:
        return
    now = time.time()
    stamp = f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(now))}.{int(now * 1000) % 1000:03d}Z"
    conn.execute(_INSERT, (source, stamp, json.dumps(rows, ensure_ascii=False)))


def clear_links(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM links")


def clear_links_except(conn: sqlite3.Connection, relation_type: str) -> None:
    """Delete every link but those of `relation_type`."""
    conn.execute("DELETE FROM links WHERE relation_type != ?", (relation_type,))


def links_of_type(conn: sqlite3.Connection, relation_type: str) -> set[tuple[str, str]]:
    """The (source, target) pairs of every link of `relation_type`."""
    sql = "SELECT source_path, target_path FROM links WHERE relation_type = ?"
    return {(source, target) for source, target in conn.execute(sql, (relation_type,))}


_ADD = (
    "INSERT OR IGNORE INTO links(source_path, target_path, relation_type, raw_target) "
    "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), "
    "json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(?)"
)


def add_links(conn: sqlite3.Connection, rows: Iterable[tuple[str, LinkRow]]) -> None:
    """Insert (source, link) rows without touching the source's other links: one sorted
    statement, as `replace_links` does (a sync re-linking one 2 MB doc of entries wrote
    them one statement each)."""
    flat = sorted(
        ((source, *link) for source, link in rows), key=lambda row: (row[0], row[1], row[2])
    )
    if flat:
        conn.execute(_ADD, (json.dumps(flat, ensure_ascii=False),))


def drop_links(
    conn: sqlite3.Connection, relation_type: str, pairs: Iterable[tuple[str, str]]
) -> None:
    """Delete the links of `relation_type` between the (source, target) pairs."""
    conn.executemany(
        "DELETE FROM links WHERE source_path = ? AND target_path = ? AND relation_type = ?",
        [(source, target, relation_type) for source, target in pairs],
    )
