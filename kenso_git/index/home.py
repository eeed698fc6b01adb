"""The work tree an index belongs to: the root it records, whoever opens it and from where.

An index named by `--db` (or `KENSO_DATABASE_URL`, or the global one) is read for the root
it was ingested for, not for the folder the reader stands in: a reader that synced it
against its own folder would delete every document and re-root it there (#26). Only
`ingest` sets or changes an index's root.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from kenso_git.errors import DatabaseError
from kenso_git.errors import KensoError
from kenso_git.errors import UsageError
from kenso_git.records import NamedTuple
from kenso_git.repo.workspace import GLOBAL_DB
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import explicit_db
from kenso_git.repo.workspace import find_workspace
from kenso_git.repo.workspace import resolve_db_path
from kenso_git.store.connection import open_current_reader
from kenso_git.store.owner import recorded_root


class Home(NamedTuple):
    """Where to read an index from: the work tree of its root, or (`lost`) the recorded
    root that is no longer a work tree root, which nothing may sync."""

    workspace: Workspace
    lost: str | None = None


class Opened(NamedTuple):
    """The index a command opens, and where it reads it from."""

    db_path: Path
    owned: bool  # found by the default rule: it must record `home.workspace` (store.owner)
    home: Home


def open_at(here: Workspace, db: str | None, *, rooting: bool = False) -> Opened:
    """The index `db` names (else the default rule's) as seen from `here`: an index found
    by the default rule belongs to `here`; one named by `--db`, `KENSO_DATABASE_URL` or the
    global index is read at the root it records, unless `rooting` (`ingest`)."""
    path = resolve_db_path(here, flag=db)
    check_access(path)
    owned = explicit_db(db) is None and path != GLOBAL_DB.expanduser()
    if owned or rooting:
        return Opened(path, owned, Home(here))
    return Opened(path, owned, home_of(path, here))


def check_access(db_path: Path) -> None:
    """Refuse an index this user may not read (another user's `.kenso/`, mode 0700) with one
    error naming it: every later look inside the folder would raise a bare PermissionError.

    Raises:
        DatabaseError: the index's folder cannot be searched, or its file cannot be read.
    """
    folder = db_path.parent
    try:
        shut = folder if folder.is_dir() and not os.access(folder, os.R_OK | os.X_OK) else None
        if shut is None and db_path.is_file() and not os.access(db_path, os.R_OK):
            shut = db_path
    except PermissionError:  # a folder above it is closed too
        shut = folder
    if shut is not None:
        raise DatabaseError(
            "the index cannot be read by this user (permission denied)",
            path=str(shut),
            hint="run kenso-git as its owner or have them make it readable "
            f"(`chmod -R a+rX {shut}`), or pass --db with an index of your own",
        )


def home_of(db_path: Path, here: Workspace) -> Home:
    """The work tree an index records, or `here` when it records none (or none readable:
    the reader then names the real problem) or records `here` itself."""
    root: str | None = None
    with contextlib.suppress(KensoError, sqlite3.Error, OSError):
        conn = open_current_reader(db_path, upgrade=False)[0]  # a peek never upgrades
        try:
            root = recorded_root(conn)
        finally:
            conn.close()
    if root is None or Path(root) == here.root:
        return Home(here)
    recorded = Path(root)
    if recorded.is_dir():
        found = find_workspace(recorded)
        if found.root == recorded:
            return Home(found)
    return Home(here, lost=root)


def lost_reason(root: str) -> str:
    """Why an index whose root is gone is not synced."""
    return (
        f"the index's root {root} is no longer there (moved or removed): answered from the "
        "index as it is; `kenso-git ingest PATH --db DB` roots it at PATH anew"
    )


def lost_error(root: str, db_path: Path) -> UsageError:
    """The error of a sync asked of an index whose root is gone (only `ingest` re-roots)."""
    return UsageError(
        f"the index's root {root} is no longer there (moved or removed); nothing to sync",
        path=str(db_path),
        hint=f"root it anew where the docs are now: `kenso-git ingest PATH --db {db_path}`",
    )


def check_takeover(db_path: Path, here: Workspace) -> None:
    """Refuse to root at `here` an index named by `--db` (or `KENSO_DATABASE_URL`, or the
    global one) that another live checkout records as its own: run from the wrong folder,
    `ingest` would have emptied that checkout's index and kept only `here`'s documents. A
    file under `here` but not under its recorded root (a copied folder's own `.kenso/`)
    and an index whose root is gone are rooted here as before; `--rebuild` replaces any.

    Raises:
        UsageError: the index belongs to another checkout that is still there.
    """
    other = home_of(db_path, here)
    if other.lost is not None or _same_folder(other.workspace.root, here.root):
        return
    owner = other.workspace.root
    if _under(db_path, here.root) and not _under(db_path, owner):
        return
    raise UsageError(
        f"this index belongs to {owner}, another checkout: ingesting {here.root} into it "
        "would replace that checkout's index",
        path=str(db_path),
        hint=(
            f"run `kenso-git ingest` from {owner} to update it, or name another file with "
            f"--db; `--rebuild` replaces it with an index of {here.root}"
        ),
    )


def _same_folder(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        return a == b or a.samefile(b)
    return False


def _under(path: Path, folder: Path) -> bool:
    with contextlib.suppress(OSError):
        return path.resolve().is_relative_to(folder.resolve())
    return False
