"""The `meta` table: scope, last synced commit and the write generation."""

from __future__ import annotations

import json
import sqlite3

from kenso_git.store import schema


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return {row[0]: row[1] for row in conn.execute("SELECT key, value FROM meta")}


def read_value(conn: sqlite3.Connection, key: str) -> str | None:
    """The value of one `meta` key, None when absent (or the index has no meta table)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def meta_scope(meta: dict[str, str]) -> list[str]:
    """The folders the index covers (`[""]`, the whole work tree, until an ingest narrows it)."""
    return list(json.loads(meta.get(schema.META_SCOPE, '[""]')))


def write_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(values.items()),
    )


def read_generation(conn: sqlite3.Connection) -> int:
    """A counter bumped by every committed write: caches keyed on it never go stale."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.META_GENERATION,)).fetchone()
    return int(row[0]) if row else 0


def bump_generation(conn: sqlite3.Connection) -> int:
    value = read_generation(conn) + 1
    write_meta(conn, {schema.META_GENERATION: str(value)})
    return value
