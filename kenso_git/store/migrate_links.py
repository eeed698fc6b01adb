"""Schema 3 -> 4: the `links` table becomes `paths` + `link_rows` behind a `links` view."""

from __future__ import annotations

import sqlite3

from kenso_git.store import schema


def normalize_links(conn: sqlite3.Connection) -> None:
    """Move every link into `link_rows`, each of its paths into `paths`, and put the view
    in the table's place; runs inside the caller's transaction.

    The rows are the table's (its `id` and `created_at` go: no reader uses them), so the
    view then shows what a fresh ingest of the same files writes.
    """
    conn.execute("ALTER TABLE links RENAME TO links_v3")
    conn.execute("DROP INDEX IF EXISTS idx_links_source")
    conn.execute("DROP INDEX IF EXISTS idx_links_target")
    for statement in schema.LINKS_DDL:
        conn.execute(statement)
    conn.execute(
        "INSERT OR IGNORE INTO paths(path) SELECT source_path FROM links_v3 "
        "UNION SELECT target_path FROM links_v3"
    )
    conn.execute(
        "INSERT OR IGNORE INTO link_rows(source_id, target_id, relation_type, raw_target) "
        "SELECT s.id, t.id, l.relation_type, l.raw_target FROM links_v3 l "
        "JOIN paths s ON s.path = l.source_path JOIN paths t ON t.path = l.target_path "
        "ORDER BY 1, 2, 3, l.id"
    )
    conn.execute("DROP TABLE links_v3")
