"""Whether the index's pages are sound: every page read (`check_pages`, what a sync does
when the file changed since a kenso-git writer left it, store/stamp.py), and the same for a
reader that reports on the index (`check_if_changed`: `stats`, `health_check`,
`index_state`), once per change of the file in a process.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kenso_git.errors import CorruptIndexError
from kenso_git.store import budget
from kenso_git.store import stamp
from kenso_git.store.faults import REBUILD_HINT


def check_pages(conn: sqlite3.Connection, db_path: Path) -> None:
    """Read every page of the index (`PRAGMA quick_check`, ~60 ms for 25 MB).

    Raises:
        CorruptIndexError: a page is damaged.
    """
    problem = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
    if problem != "ok":
        stamp.note_damage(db_path, problem)
        raise _corrupt(db_path, problem)


def check_if_changed(conn: sqlite3.Connection, db_path: Path) -> None:
    """For a reader that reports on the index (`stats`, `health_check`, `index_state`): the
    damage a read of the file as it is now met, else every page read (`check_pages`) when
    the file changed since a kenso-git writer last left it, as a sync checks (store/stamp.py).
    Once per change of the file in this process; a file as its writer left it costs a stat.

    Raises:
        CorruptIndexError: a page is damaged, or a read of the file met damage.
    """
    seen = stamp.now(db_path)
    if seen is None:
        return  # gone meanwhile: the read names that
    looked, problem = stamp.found(db_path, seen)
    if problem is not None:
        raise _corrupt(db_path, problem)
    if looked or stamp.matches(db_path):
        return
    # once per change of the file, for every later call (a cache): charged to neither of the
    # call's budgets, or a large index would be stopped at the wall deadline every call and
    # its check never remembered
    with budget.aside():
        check_pages(conn, db_path)
    stamp.note_sound(db_path, seen)
    stamp.record(db_path, seen=seen)  # sound as it is: the next writer need not read it again


def _corrupt(db_path: Path, problem: str) -> CorruptIndexError:
    return CorruptIndexError(
        f"the index database is corrupt ({problem})", path=str(db_path), hint=REBUILD_HINT
    )
