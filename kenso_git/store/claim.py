"""Which files an index may be written into or may replace: never one holding something else.

`--db` (or `KENSO_DATABASE_URL`) names any path. A Markdown file or another program's SQLite
database found there is not an index: opening it as one must neither add kenso-git's tables
to it nor, with `ingest --rebuild` (the recovery from a damaged index), replace it. An
empty file, a kenso 2.0.0 index (adopted: rebuilt in place) and a damaged kenso-git index
are still indexes; an empty file git tracks, or an empty Markdown page, is not.
"""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from kenso_git.errors import NotAnIndexError
from kenso_git.repo.workspace import DB_DIRNAME
from kenso_git.repo.workspace import is_markdown
from kenso_git.store import schema
from kenso_git.store import wal

SQLITE_HEADER = b"SQLite format 3\x00"
# kenso 2.0.0's index: its tables are replaced when kenso-git adopts the file
KENSO_TABLES = frozenset(
    {"chunks", "links", "chunks_fts"}
    | {f"chunks_fts_{shadow}" for shadow in ("data", "idx", "docsize", "config", "content")}
)
_NAMED = 5  # foreign tables named in the message
_INDEX_HINT = "name the index file with --db (by default .kenso/docs.db at the root)"


def not_sqlite(db_path: Path) -> NotAnIndexError | None:
    """The error for a file at `db_path` that holds bytes but not SQLite's header; None
    when it does start so, is empty, cannot be read (the caller names that cause), or lies
    in kenso-git's own `.kenso/` folder (there it is a damaged index: `--rebuild` replaces it)."""
    if db_path.parent.name == DB_DIRNAME or not db_path.is_file():
        return None
    head = read_head(db_path)
    if not head or head == SQLITE_HEADER:
        return None
    shown = head.decode("utf-8", "replace").split("\n")[0][:12]
    return NotAnIndexError(
        f"{db_path.name} is not an SQLite database (it starts with {shown!r}), so it is not an "
        "index: left as it is",
        path=str(db_path),
        hint=f"{_INDEX_HINT}; a damaged index whose first bytes are gone can be deleted",
    )


def read_head(path: Path) -> bytes | None:
    """The first bytes of the file at `path` (as many as SQLite's header), None when it
    cannot be read."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER))
    except OSError:
        return None


def user_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of the database, SQLite's own left out, by name."""
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' "
        "ESCAPE '!' ORDER BY name"
    ).fetchall()
    return [str(row[0]) for row in rows]


def check_claim(conn: sqlite3.Connection, db_path: Path, version: int) -> None:
    """Refuse to write kenso-git's schema into a database that is not an index: another
    program's application id, or (no schema version yet) tables neither kenso-git nor
    kenso 2.0.0 made.

    Raises:
        NotAnIndexError: the database belongs to something else.
    """
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app not in (0, schema.APPLICATION_ID):
        raise _foreign(db_path, f"its application id is {app:#x}")
    if version != 0:
        return
    foreign = [name for name in user_tables(conn) if name not in KENSO_TABLES]
    if foreign:
        more = f" and {len(foreign) - _NAMED} more" if len(foreign) > _NAMED else ""
        raise _foreign(db_path, f"it holds the tables {', '.join(foreign[:_NAMED])}{more}")


def check_file(db_path: Path, tracked: Callable[[Path], bool] | None = None) -> None:
    """Refuse a file named as the index that holds something else, before a writer takes
    its lock or builds anything beside it, and before `ingest --rebuild` replaces it. An
    SQLite file that cannot be read (damaged) is left to the writer, which names the damage
    or, rebuilding, replaces it; so is anything in kenso-git's own `.kenso/`. An empty file
    is an index-to-be (`touch`, `mktemp`) unless it is a Markdown page or `tracked` says git
    tracks it: then it is the project's (an empty `NOTES.txt` committed as a placeholder).

    Raises:
        NotAnIndexError: the file holds something else.
    """
    try:
        info = db_path.stat()
    except OSError:
        return  # none yet (the writer creates it), or the writer names why it cannot
    mode = info.st_mode
    if not stat.S_ISREG(mode):  # a folder, /dev/null, a pipe: never opened, never replaced
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise NotAnIndexError(
            f"{db_path.name} is {kind}, so it cannot be an index: left as it is",
            path=str(db_path),
            hint=_INDEX_HINT,
        )
    if info.st_size == 0 and db_path.parent.name != DB_DIRNAME:
        page = is_markdown(db_path.name)
        if page or (tracked is not None and tracked(db_path)):
            what = "a Markdown page" if page else "a file git tracks"
            raise NotAnIndexError(
                f"{db_path.name} is {what} (empty), so it is not an index: left as it is",
                path=str(db_path),
                hint=_INDEX_HINT,
            )
    error = not_sqlite(db_path)
    if error is not None:
        raise error
    if db_path.parent.name == DB_DIRNAME:
        return  # ours: damaged or not, the writer's own check (open_writer) has the last word
    try:
        conn = sqlite3.connect(wal.file_uri(db_path, "ro"), uri=True)
    except (sqlite3.Error, OSError):
        return
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        check_claim(conn, db_path, version)
    except sqlite3.Error:
        return  # damaged: what --rebuild is for
    finally:
        conn.close()


def _foreign(db_path: Path, why: str) -> NotAnIndexError:
    return NotAnIndexError(
        f"{db_path.name} is an SQLite database but not a kenso-git index ({why}): left as it is",
        path=str(db_path),
        hint=_INDEX_HINT,
    )
