"""Reads of the link graph by path id: the queries search/ runs on every related lookup.

The `links` view joins both paths of every row before it can test either, so a query
for the links touching a few paths goes to `link_rows` by id instead: the primary key
finds a path's outgoing links, idx_link_rows_target its incoming ones, and only the end
the caller does not know yet is joined to its path (kenso's table read both from the
row, and an incoming link's row by its rowid: one lookup a link either way). Plain SQL of
SQLite 3.34 (the trigram tokenizer's floor): no RETURNING, no MATERIALIZED.
"""

from __future__ import annotations

import json
import sqlite3

Edge = tuple[str, str, str]  # source path, target path, relation type

# The paths ?1 and their ids (used twice: SQLite 3.35+ computes it once).
_KNOWN = (
    "WITH k(id, path) AS (SELECT id, path FROM paths "
    "WHERE path IN (SELECT value FROM json_each(?1))) "
)
# Outgoing links of the paths, then the incoming ones whose source is not among them
# (those were outgoing links already).
_TOUCHING = (
    f"{_KNOWN}SELECT k.path, t.path, l.relation_type FROM k "
    "JOIN link_rows l ON l.source_id = k.id JOIN paths t ON t.id = l.target_id{where} UNION ALL "
    "SELECT s.path, k.path, l.relation_type FROM k JOIN link_rows l ON l.target_id = k.id "
    "JOIN paths s ON s.id = l.source_id WHERE l.source_id NOT IN (SELECT id FROM k){also}"
)
_WITHIN = (
    f"{_KNOWN}SELECT a.path, b.path FROM k a JOIN link_rows l ON l.source_id = a.id "
    "JOIN k b ON b.id = l.target_id WHERE l.relation_type IS NOT ?2"
)


def touching(
    conn: sqlite3.Connection, paths: list[str], relation_type: str | None = None
) -> list[Edge]:
    """The links with one of `paths` as source or target (of `relation_type`, if given)."""
    params: tuple[str, ...] = (json.dumps(paths, ensure_ascii=False),)
    if relation_type is None:
        sql = _TOUCHING.format(where="", also="")
    else:
        sql = _TOUCHING.format(
            where=" WHERE l.relation_type = ?2", also=" AND l.relation_type = ?2"
        )
        params += (relation_type,)
    return [(s, t, r) for s, t, r in conn.execute(sql, params)]


def within(conn: sqlite3.Connection, paths: list[str], excluded_type: str) -> list[tuple[str, str]]:
    """(source, target) of the links between two of `paths`, but those of `excluded_type`."""
    rows = conn.execute(_WITHIN, (json.dumps(paths, ensure_ascii=False), excluded_type))
    return [(s, t) for s, t in rows]


def outgoing(conn: sqlite3.Connection, path: str) -> list[Edge]:
    """The links from `path`."""
    sql = (
        "SELECT t.path, l.relation_type FROM link_rows l JOIN paths t ON t.id = l.target_id "
        "WHERE l.source_id = (SELECT id FROM paths WHERE path = ?)"
    )
    return [(path, target, relation) for target, relation in conn.execute(sql, (path,))]


def incoming(conn: sqlite3.Connection, path: str) -> list[Edge]:
    """The links to `path`."""
    sql = (
        "SELECT s.path, l.relation_type FROM link_rows l JOIN paths s ON s.id = l.source_id "
        "WHERE l.target_id = (SELECT id FROM paths WHERE path = ?)"
    )
    return [(source, path, relation) for source, relation in conn.execute(sql, (path,))]
