"""The work tree an index belongs to: the root it records, whoever opens it and from where.

An index named by `--db` (or `KENSO_DATABASE_URL`, or the global one) is read for the root
it was ingested for, not for the folder the reader stands in: a reader that synced it
against its own folder would delete every document and re-root it there (#26). Only
`ingest` sets or changes an index's root.

A recorded root that is still a folder but no longer the repository the index was built
from (an empty mount point, a folder made anew, another clone or repository at the same
path) counts as gone too: reading it as the work tree would empty the index, or fill it with
another repository's docs. Its identity is the HEAD the index recorded: the repository there
must still hold that commit (or have HEAD at it).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from pathlib import Path

from kenso_git.errors import DatabaseError
from kenso_git.errors import KensoError
from kenso_git.errors import UsageError
from kenso_git.index.freshness import head_commit
from kenso_git.records import NamedTuple
from kenso_git.repo.indexroot import root_with_index
from kenso_git.repo.safeopen import check_index_folder
from kenso_git.repo.workspace import GLOBAL_DB
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import explicit_db
from kenso_git.repo.workspace import find_workspace
from kenso_git.repo.workspace import git_dirs_of
from kenso_git.repo.workspace import resolve_db_path
from kenso_git.store import files
from kenso_git.store import schema
from kenso_git.store import totals
from kenso_git.store.connection import open_current_reader
from kenso_git.store.meta import read_value

_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


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
    by the default rule belongs to `here` (outside git, to the nearest folder at or above
    it holding one: `repo.indexroot`); one named by `--db`, `KENSO_DATABASE_URL` or the
    global index is read at the root it records, unless `rooting` (`ingest`).

    Raises:
        UsageError: the default rule's `.kenso` is a symbolic link or a file (a branch can
            commit one): nothing is read or written through it.
        DatabaseError: the index cannot be read by this user (`check_access`).
    """
    if explicit_db(db) is None:
        here = root_with_index(here)
    path = resolve_db_path(here, flag=db)
    owned = explicit_db(db) is None and path != GLOBAL_DB.expanduser()
    if owned:
        check_index_folder(path.parent)
    check_access(path)
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


# A recorded HEAD the repository lacks (amended and pruned, a shallow clone's CI cache) is
# no proof of another repository: one of these paths in its work tree says it is the same
SAMPLED_PATHS = 64


class _Record(NamedTuple):
    """What an index says about the work tree it was built from."""

    root: str | None  # None: no root recorded (never written, or older), or unreadable
    head: str | None = None  # HEAD at the last sync ("" unborn); None: built outside git
    documents: int = 0
    held: tuple[str, ...] = ()  # some of the paths it holds (the first SAMPLED_PATHS)


def _peek(db_path: Path) -> _Record:
    with contextlib.suppress(KensoError, sqlite3.Error, OSError):
        conn = open_current_reader(db_path, upgrade=False)[0]  # a peek never upgrades
        try:
            head = read_value(conn, schema.META_HEAD)
            documents = totals.read(conn).documents if head is None else 0
            held = tuple(files.first_paths(conn, SAMPLED_PATHS)) if head else ()
            return _Record(read_value(conn, schema.META_ROOT) or None, head, documents, held)
        finally:
            conn.close()
    return _Record(None)


def home_of(db_path: Path, here: Workspace) -> Home:
    """The work tree an index records, or `here` when it records none (or none readable:
    the reader then names the real problem) or records `here` itself. A recorded root that
    is gone, or is no longer the repository the index was built from, is `lost`."""
    record = _peek(db_path)
    root = record.root
    if root is None:
        return Home(here)
    recorded = Path(root)
    found: Workspace | None = here if recorded == here.root else None
    if found is None and recorded.is_dir():
        found = find_workspace(recorded)
    if found is None or found.root != recorded or not _built_from(found, record):
        return Home(here, lost=root)
    return Home(found)


def _built_from(ws: Workspace, record: _Record) -> bool:
    """Whether `ws` is still the work tree the index was built from, as far as it tells."""
    if record.head is None:  # built outside git: only an empty folder is surely not it
        return not (record.documents and _is_empty(ws.root))
    if not ws.is_git:  # a mount point not mounted, a repository whose .git went away
        return False
    if not record.head or head_commit(ws) == record.head:
        return True
    return _holds_commit(ws, record.head) or _holds_any(ws, record.held)


def _holds_any(ws: Workspace, paths: tuple[str, ...]) -> bool:
    """Whether the work tree of `ws` has one of `paths` (an index of no docs has nothing to
    lose): a commit the index recorded may be gone from its own repository."""
    return not paths or any(os.path.lexists(ws.root / p) for p in paths)


def _holds_commit(ws: Workspace, commit: str) -> bool:
    """Whether the repository of `ws` holds `commit`: a loose object (a recent commit), else
    git's word (packs, alternates); never a lazy fetch of a partial clone."""
    if not _COMMIT_ID.fullmatch(commit) or ws.common_dir is None:
        return False
    if (ws.common_dir / "objects" / commit[:2] / commit[2:]).is_file():
        return True
    from kenso_git.repo.gitrun import run_git
    from kenso_git.repo.prestart import scrubbed_env

    env = {**scrubbed_env(), "GIT_NO_LAZY_FETCH": "1"}
    try:
        run_git(ws, "cat-file", "-e", f"{commit}^{{commit}}", timeout=10.0, env=env)
    except KensoError:  # not there (or git cannot tell): never sync it on a guess
        return False
    return True


def _is_empty(folder: Path) -> bool:
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        return next(entries, None) is None
    return False


def _lost_what(root: str) -> str:
    """What the recorded root is now, for the messages below."""
    folder = Path(root)
    if not folder.is_dir():
        return "is no longer there (moved or removed)"
    if _is_empty(folder):
        return "is an empty folder now (a disk not mounted, or a folder made anew)"
    if git_dirs_of(folder) is None:
        return "is no longer the work tree the index was built from (it holds no repository)"
    return "holds another repository than the one the index was built from"


def _is_gone(root: str) -> bool:
    return not Path(root).is_dir()


def lost_reason(root: str) -> str:
    """Why an index whose root is gone (or another repository) is not synced."""
    if _is_gone(root):
        then = "`kenso-git ingest PATH --db DB` roots it at PATH anew"
    else:
        then = (
            "mount or restore the repository there, or run `kenso-git ingest --rebuild "
            "--db DB` in it to index what it holds now"
        )
    return f"the index's root {root} {_lost_what(root)}: answered from the index as it is; {then}"


def lost_error(root: str, db_path: Path, *, done: str = "synced") -> UsageError:
    """The error of a sync (or an `ingest` there) asked of an index whose root is gone or
    another repository now: only `ingest` re-roots it, only `--rebuild` replaces it there."""
    if _is_gone(root):
        hint = f"root it anew where the docs are now: `kenso-git ingest PATH --db {db_path}`"
    else:
        hint = (
            f"if {root} is a disk that is not mounted, mount it and run this again; to index "
            f"what is there now instead, run `kenso-git ingest --rebuild --db {db_path}` in it"
        )
    return UsageError(
        f"the index's root {root} {_lost_what(root)}; nothing {done}, the index is kept",
        path=str(db_path),
        hint=hint,
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
    if other.lost is not None:
        if _same_folder(Path(other.lost), here.root):  # the root is another repository now
            raise lost_error(other.lost, db_path, done="ingested")
        return
    if _same_folder(other.workspace.root, here.root):
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


def check_root_option(given: Path, recorded: str, db_path: Path, *, verb: str) -> None:
    """Refuse a `--root` (of `watch`, `serve`) that names another work tree than the root
    the index records (`recorded`: the root a reader of it uses, gone or not): the index
    is only ever read and synced at its own root, so the option would be ignored.

    Raises:
        UsageError: `given` lies outside the index's root.
    """
    root = root_with_index(find_workspace(given)).root
    if _same_folder(root, Path(recorded)):
        return
    raise UsageError(
        f"this index belongs to {recorded}, not to --root {root}",
        path=str(db_path),
        hint=(
            f"drop --root to {verb} {recorded}, or name an index of {root} with --db "
            f"(`kenso-git ingest --db FILE` there makes one)"
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
