"""Which work tree an index belongs to: the root recorded in its meta table.

An index found by the default rule (`.kenso/docs.db` of the root) must have been built for
that root: a copied folder, a moved repository or a database picked up from elsewhere
would otherwise be read, or overwritten, as if it were this root's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kenso_git.errors import UsageError
from kenso_git.store import schema


def recorded_root(conn: sqlite3.Connection) -> str | None:
    """The root the index was last written for, or None (never written, or older)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.META_ROOT,)).fetchone()
    return str(row[0]) if row and row[0] else None


def check_owner(conn: sqlite3.Connection, root: Path, db_path: Path) -> None:
    """Refuse an index that records another root than `root`.

    Raises:
        UsageError: the index was built for another folder.
    """
    owner = recorded_root(conn)
    if owner is None or Path(owner) == root:
        return
    there = f"run kenso-git from {owner}, or " if Path(owner).is_dir() else ""
    raise UsageError(
        f"this index belongs to {owner}, not to {root}",
        path=str(db_path),
        hint=(
            f"{there}rebuild it for {root} with `kenso-git ingest --db {db_path}` "
            "(--db opens the file you name whatever root it records)"
        ),
    )
