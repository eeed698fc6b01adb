"""A page-by-page copy of an index file (SQLite's backup API): one consistent snapshot, no
re-tokenising; what a revision's index starts from (#29, index/atref.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def copy_index(source: Path, target: Path) -> None:
    """Copy the index at `source` to `target`, page by page, as of one read transaction."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def open_copy(target: Path) -> sqlite3.Connection:
    """A writing connection to a private copy (autocommit: callers use `transaction`)."""
    from kenso_git.store.connection import add_functions

    conn = sqlite3.connect(target, isolation_level=None)
    add_functions(conn)
    return conn
