"""A private copy of an index, opened for writing: what a revision's index is made in from
the checkout's (#29, index/atref.py, which copies the checkout's index page by page)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_copy(target: Path) -> sqlite3.Connection:
    """A writing connection to a private copy (autocommit: callers use `transaction`)."""
    from kenso_git.store.connection import add_functions

    conn = sqlite3.connect(target, isolation_level=None)
    add_functions(conn)
    return conn
