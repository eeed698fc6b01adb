"""The `links` table: resolved `relates_to` edges of each source file."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import NamedTuple


class LinkRow(NamedTuple):
    target_path: str
    relation_type: str
    raw_target: str


def replace_links(conn: sqlite3.Connection, source: str, links: Iterable[LinkRow]) -> None:
    conn.execute("DELETE FROM links WHERE source_path = ?", (source,))
    conn.executemany(
        "INSERT OR IGNORE INTO links(source_path, target_path, relation_type, raw_target) "
        "VALUES (?, ?, ?, ?)",
        [(source, link.target_path, link.relation_type, link.raw_target) for link in links],
    )


def clear_links(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM links")
