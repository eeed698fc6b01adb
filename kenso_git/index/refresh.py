"""Query-time freshness: what changed in the work tree since the index last looked.

Before a read, `KnowledgeBase` asks `changes()` which Markdown files appeared, vanished or
have new stat data (no file is read or hashed here), and whether HEAD moved; it then syncs
just those paths. In a git work tree with a mark (`gitprobe`), one `git status` names the
few docs worth a look; elsewhere the work tree is walked. Editors, `git clean` and sparse
checkouts fire no hook, so this check is what keeps an answer equal to the work tree at
the moment it is given.

A doc git does not list may still be one ingest would skip now: a folder that became a
nested repository (`git init a`) or an environment folder (`python -m venv a`) leaves its
tracked docs clean to git. Each check looks at every folder holding an indexed doc (one
`stat` a folder while it is unchanged, `repo.foreign`), the sync drops the docs of one that
became foreign, so the counts agree with what the scope gate serves, and reads them again
once the marker is gone.

An index whose chunks were made by other settings or parser versions (`freshness.reparse_due`,
from the meta the check reads anyway) is answered from as it is, flagged stale: any sync of
it parses every doc again, which is a writer's job (`kenso-git sync`, a hook, the watcher's
check), not a query's.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from typing import TYPE_CHECKING

from kenso_git.index import gitprobe
from kenso_git.index.freshness import REPARSE_DUE
from kenso_git.index.freshness import head_commit
from kenso_git.index.freshness import is_settled
from kenso_git.index.freshness import reparse_due
from kenso_git.index.freshness import stat_matches
from kenso_git.index.freshness import stat_unchanged
from kenso_git.records import NamedTuple
from kenso_git.repo.foreign import FolderWatch
from kenso_git.repo.status import FileStatus
from kenso_git.store import schema
from kenso_git.store.files import blob_ids
from kenso_git.store.files import load_files
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from pathlib import Path

    from kenso_git.config import Settings
    from kenso_git.repo.discover import SourceFile
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.repo.workspace import Workspace
    from kenso_git.store.files import FileRow

# Above this many changed files a query does not sync: it answers from the index and says
# `stale` (a branch switch without hooks is `kenso-git sync`'s job, not a query's).
MAX_QUERY_SYNC_FILES = 200
# A query's sync adds the docs it synced to the mark; past this many that no longer differ
# from HEAD (committed, reverted), the next change is synced whole to record a fresh mark.
MARK_SLACK = 20


class Changes(NamedTuple):
    """What differs between the work tree and the index, as stat data shows it."""

    paths: list[str]  # root-relative paths to sync: new, vanished or touched files
    head_moved: bool  # HEAD is not the commit the index recorded
    head: str | None  # HEAD now
    elapsed: float  # seconds the check took
    # git listed the candidates, from a mark of an older HEAD or listing many docs that no
    # longer differ: a whole sync (walk-free) is due to record a new mark
    mark_behind: bool = False
    differs: bool | None = None  # git listed docs that differ from HEAD (None: not asked)
    # of `paths`, the indexed docs in a folder that is now a nested repository or an
    # environment folder (git lists none of them): a walk-free whole sync would keep them
    foreign: tuple[str, ...] = ()
    # the index's chunks were made by other settings or parser versions: any sync of it
    # parses every doc again (`freshness.reparse_due`)
    reparse: bool = False

    @property
    def any(self) -> bool:
        """Whether a sync is needed at all."""
        return bool(self.paths) or self.head_moved or self.reparse

    @property
    def too_many(self) -> bool:
        """Whether syncing them would blow a query's budget (dropping the `foreign` docs
        reads none: only a walk would drop them otherwise, as no later sync looks at them)."""
        return len(self.paths) - len(self.foreign) > MAX_QUERY_SYNC_FILES


class Freshness(NamedTuple):
    """How fresh the last answer was: `stale` with the reason when it may not be."""

    stale: bool
    reason: str | None = None
    too_many: bool = False  # more docs changed than a query syncs (the reason counts them)
    # fresh after a `git status` at HEAD `head`: whether the docs differ from HEAD's (#32:
    # `state()` need not work it out from every files row)
    differs: bool | None = None
    head: str | None = None
    checked_s: float | None = None  # what the check itself took (git status or walk), no sync


FRESH = Freshness(False)


def changes(
    ws: Workspace, settings: Settings, meta: dict[str, str], stored: dict[str, FileRow]
) -> Changes:
    """The files whose stat data differs from the index's, and whether HEAD moved (a walk)."""
    from kenso_git.repo.discover import discover  # with the parser: only for a walk

    started = time.perf_counter()
    head = head_commit(ws) if ws.is_git else None
    head_moved = ws.is_git and head != (meta.get(schema.META_HEAD) or None)
    found = discover(ws, settings, scope=meta_scope(meta))
    paths = _differing(found, stored)
    elapsed = time.perf_counter() - started
    return Changes(paths, head_moved, head, elapsed, reparse=reparse_due(meta, settings))


def _differing(found: list[SourceFile], stored: dict[str, FileRow]) -> list[str]:
    live = {sf.path for sf in found}
    paths = [sf.path for sf in found if not _unchanged(sf, stored.get(sf.path))]
    paths.extend(sorted(p for p in stored if p not in live))
    return paths


def _unchanged(sf: SourceFile, row: FileRow | None) -> bool:
    """The file still holds the bytes the row was read from: its stat data says so, or,
    racy (the stat data matches, but the mtime is not before the index read it), its bytes
    do. A racy file is settled by reading it, not by a sync: a sync of a file stamped ahead
    of the clock leaves it racy, so each check would write its row again though nothing
    changed (a read never writes unless something did). An edit is still caught: it changes
    the stat data (the ctime at least), or else the bytes."""
    if stat_unchanged(sf, row):
        return True
    if row is None or not row.blob_id or row.status == FileStatus.LARGE:
        return False
    if not stat_matches(sf, row):
        return False
    from kenso_git.repo.discover import Read
    from kenso_git.repo.discover import read_file
    from kenso_git.repo.git import is_indexed_bytes

    read = read_file(sf, row.size)  # at the vetted path, no link followed (as a sync reads)
    if not isinstance(read, Read) or read.seen is not None or len(read.data) != row.size:
        return False  # replaced, grown, binary or unreadable: the sync decides
    return is_indexed_bytes(sf.root, sf.path, read.data, row.blob_id)


def git_changes(
    ws: Workspace,
    settings: Settings,
    conn: sqlite3.Connection,
    early: EarlyStatus | None = None,
) -> Changes | None:
    """Like `changes`, looking only at the docs git lists (see `gitprobe`); None: walk.

    Meta and rows come from one read transaction, so the mark and the rows agree. `early`:
    the `git status` the caller started when its process began (`gitstatus.start_status`), taken
    when it can answer for this scope and HEAD.
    """
    started = time.perf_counter()
    meta = read_meta(conn)
    scope = meta_scope(meta)
    now = gitprobe.probe(ws, settings, scope, early=early)
    picked = None if now is None else gitprobe.candidates(ws, meta, now)
    if now is None or picked is None:
        return None
    looked, mark = picked
    paths: list[str] = []
    if looked:  # nothing listed, the common case, costs no import of the walker
        rows = load_files(conn, looked)
        # A listed doc whose stat data still matches its row was vetted when it was indexed
        # (an ignore-rule edit makes the next check walk): one lstat, not a second vetting
        # of every folder above it. Uncommitted docs are listed on every check.
        vet = [rel for rel in looked if not _same_regular_file(ws.root, rel, rows.get(rel))]
        if vet:
            from kenso_git.repo.discover import discover_paths

            found = discover_paths(ws, settings, vet, scope=scope)
            paths = _differing(found, {rel: rows[rel] for rel in vet if rel in rows})
    foreign, back = foreign_docs(ws, conn, meta)
    if foreign or back:
        paths = sorted({*paths, *foreign, *back})
    head_moved = now.head != (meta.get(schema.META_HEAD) or None)
    behind = mark.head != now.head or len(mark.docs - set(now.docs)) > MARK_SLACK
    elapsed = time.perf_counter() - started
    return Changes(
        paths,
        head_moved,
        now.head,
        elapsed,
        behind,
        differs=bool(now.docs),
        foreign=foreign,
        reparse=reparse_due(meta, settings),
    )


class _Folders(NamedTuple):
    """The index's paths by folder, read once per write of the index (its generation), and
    what the checks of a work tree remember of its folders (`repo.foreign.FolderWatch`)."""

    key: tuple[str, str]  # (work tree, index generation)
    paths: dict[str, list[str]]
    watch: FolderWatch


_folders: list[_Folders] = []  # the last work tree's (a process serves one, or a few)


def foreign_docs(
    ws: Workspace, conn: sqlite3.Connection, meta: dict[str, str]
) -> tuple[tuple[str, ...], list[str]]:
    """The index's paths in a folder that is now a nested repository or an environment
    folder (or inside one), which ingest skips but git lists none of (a tracked file in a
    folder that became a repository stays clean to git); and the Markdown files of such a
    folder, found so by an earlier check, that is the project's again. Each folder holding
    a doc, and each above it, costs one `stat` while it is unchanged."""
    key = (str(ws.root), meta.get(schema.META_GENERATION, ""))
    kept = _folders[0] if _folders else None
    if kept is None or kept.key != key:
        paths: dict[str, list[str]] = {}
        for path in blob_ids(conn):
            paths.setdefault(path.rpartition("/")[0], []).append(path)
        watch = kept.watch if kept is not None and kept.key[0] == key[0] else FolderWatch()
        kept = _Folders(key, paths, watch)
        _folders[:] = [kept]
    foreign, back = kept.watch.look(key[0], kept.paths)
    return tuple(sorted(path for folder in foreign for path in kept.paths[folder])), back


def _same_regular_file(root: Path, rel: str, row: FileRow | None) -> bool:
    """The path is still the regular file (no symlink) the row's stat data describes, and
    that stat data vouches for its bytes (`freshness.is_settled`); a racy one is vetted."""
    if row is None:
        return False
    try:
        st = os.lstat(os.path.join(root, rel))
    except OSError:
        return False
    state = disk_state(row, st)
    return state == "same" or (
        state == "racy" and is_settled(row.mtime_ns, row.ctime_ns, row.seen_ns)
    )


def disk_state(row: FileRow | None, st: os.stat_result | None) -> str:
    """`same`, `racy`, `changed` or `gone`: the file on disk (`st`, None when nothing is
    there) against the index's stat data for it.

    `racy`: the stat data matches, but the file's mtime is not before the index read it
    (written in the same tick, or stamped ahead of the clock: `touch -d`, a tarball or an
    NFS server from a clock that runs fast). The stat data cannot tell such a file from
    one edited since: its bytes must (`api.page.racy_unchanged`), as git compares a racy
    entry's content. A sync does not clear a future mtime: it stays racy until the clock
    passes it. The query-time check settles it by its ctime (`freshness.is_settled`) or
    its bytes (`_unchanged`), never by a sync, which would write its row on every check.

    `get_doc` calls this right after reading, so that a file edited, deleted or replaced
    (by another file or through a link) after the query-time check, or with the check off,
    is never served with its old text.
    """
    if row is None or st is None:
        return "gone"
    same = (
        stat.S_ISREG(st.st_mode)
        and row.size == st.st_size
        and row.mtime_ns == st.st_mtime_ns
        and row.ctime_ns == st.st_ctime_ns
        and row.inode == st.st_ino
    )
    if not same:
        return "changed"
    return "same" if st.st_mtime_ns < row.seen_ns else "racy"


def pending(
    ws: Workspace,
    settings: Settings,
    read: Callable[[Callable[[sqlite3.Connection], Changes | None]], Changes | None],
    snapshot: Callable[[], tuple[dict[str, str], dict[str, FileRow]]],
    early: EarlyStatus | None = None,
) -> tuple[Changes, bool]:
    """What changed since the index last looked, and whether a whole sync should leave a
    new mark: one `git status` against the last sync's mark (`early`'s, see `git_changes`),
    else a walk (`snapshot` reads the meta and every files row for it)."""
    found = read(lambda conn: git_changes(ws, settings, conn, early)) if ws.is_git else None
    if found is not None:
        return found, False
    meta, stored = snapshot()
    # No usable mark (none yet, the ignore rules changed, HEAD moved past rule files): one
    # whole sync walks and leaves a new one, so the next checks need not walk. An empty
    # mark is a sync's word that none can be kept here: walk, as before.
    return changes(ws, settings, meta, stored), ws.is_git and meta.get(gitprobe.META_GIT_MARK) != ""


def _remark(sync: Callable[[list[str] | None], object]) -> None:
    """Nothing to sync, but the mark lists many docs git no longer lists (an ingest right
    after a clone or checkout lists every doc it read within the clock slack): a whole sync,
    walk-free and rewriting nothing, leaves a narrow one, so the next checks need not lstat
    each of them. The answer is fresh either way: a sync that cannot run (a read-only index,
    a writer holding the lock) is left to the next writer."""
    from kenso_git.errors import KensoError

    with contextlib.suppress(KensoError):
        sync(None)


def ensure_fresh(
    ws: Workspace,
    settings: Settings,
    read: Callable[[Callable[[sqlite3.Connection], Changes | None]], Changes | None],
    snapshot: Callable[[], tuple[dict[str, str], dict[str, FileRow]]],
    sync: Callable[[list[str] | None], object],
    early: EarlyStatus | None = None,
    writer_done: Callable[[], bool] | None = None,
) -> Freshness:
    """Sync what changed since the index last looked, unless that is too much for a query.

    `read` runs a function in one read transaction; `snapshot` reads the index's meta and
    every files row (for the walk); `sync` brings the given paths up to date, or with None
    runs a whole sync (the caller's coalesced, locked sync). A sync that fails (a read-only
    database, a writer holding the lock too long) leaves the answer to the index, flagged
    stale. `early`: see `git_changes`. `writer_done` waits for a writer syncing now (True
    once it finished): a change too large for a query is checked again after it. An index
    due a parse of every doc (`Changes.reparse`) is not waited for (it may stay so until the
    user syncs: each query would wait) nor synced: the answer is flagged stale.
    """
    from kenso_git.errors import CorruptIndexError
    from kenso_git.errors import KensoError

    found, remark = pending(ws, settings, read, snapshot, early)
    if found.too_many and not found.reparse and writer_done is not None and writer_done():
        # a checkout's sync (a hook's, the watcher's) was writing it: look again
        found, remark = pending(ws, settings, read, snapshot)
    if found.reparse:
        return Freshness(True, REPARSE_DUE)
    fresh = FRESH._replace(checked_s=found.elapsed)
    if found.differs is not None:
        fresh = fresh._replace(differs=found.differs, head=found.head)
    if not found.any and not remark:
        if found.mark_behind:
            _remark(sync)
        return fresh
    if found.too_many:
        return Freshness(
            True,
            f"{len(found.paths) - len(found.foreign)} docs changed since the last sync, "
            f"more than a query syncs ({MAX_QUERY_SYNC_FILES}); run `kenso-git sync`",
            too_many=True,
        )
    try:
        # HEAD moved past the mark: a whole sync (itself walk-free) records a new mark, so
        # the next checks need not diff the commits again (or walk, see `remark`).
        whole = found.mark_behind or remark
        sync(None if whole else found.paths)
        if whole and found.foreign:
            sync(list(found.foreign))  # the walk-free sync looks only at what git lists
    except KensoError as err:
        reason = f"the work tree changed and the sync failed: {err.message}"
        if isinstance(err, CorruptIndexError) and err.hint:
            reason = f"{reason}; {err.hint}"  # no later sync mends it: name the repair
        return Freshness(True, reason)
    return fresh
