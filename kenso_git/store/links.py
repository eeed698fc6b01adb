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


def clear_links_except(conn: sqlite3.Connection, relation_type: str) -> None:
    """Delete every link but those of `relation_type`."""
    conn.execute("DELETE FROM links WHERE relation_type != ?", (relation_type,))


def links_of_type(conn: sqlite3.Connection, relation_type: str) -> set[tuple[str, str]]:
    """The (source, target) pairs of every link of `relation_type`."""
    sql = "SELECT source_path, target_path FROM links WHERE relation_type = ?"
    return {(source, target) for source, target in conn.execute(sql, (relation_type,))}


def add_links(conn: sqlite3.Connection, rows: Iterable[tuple[str, LinkRow]]) -> None:
    """Insert (source, link) rows without touching the source's other links."""
    conn.executemany(
        "INSERT OR IGNORE INTO links(source_path, target_path, relation_type, raw_target) "
        "VALUES (?, ?, ?, ?)",
        [(source, link.target_path, link.relation_type, link.raw_target) for source, link in rows],
    )


def drop_links(
    conn: sqlite3.Connection, relation_type: str, pairs: Iterable[tuple[str, str]]
) -> None:
    """Delete the links of `relation_type` between the (source, target) pairs."""
    conn.executemany(
        "DELETE FROM links WHERE source_path = ? AND target_path = ? AND relation_type = ?",
        [(source, target, relation_type) for source, target in pairs],
    )
