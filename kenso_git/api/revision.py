"""Search and read the docs as they are in another commit (#29's `--ref`).

`at_revision(kb, ref)` yields a read-only knowledge base over the docs at `ref`: the
checkout's index copied and the differing docs applied (index/atref.py), those docs and
their texts kept in the revision cache for the next time (store/revcache.py). The work
tree, git's index and HEAD are never touched; the copy lives in a temporary folder under
the index's own folder (`revisions/`), or, where that cannot be written (a read-only
checkout), in a private one under the system's temporary folder, and is removed when the
block ends, or, for a server, when its pool lets it go (api/revpool.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.api.revpool import RevisionCopy
from kenso_git.errors import IndexWriteError
from kenso_git.store import budget

if TYPE_CHECKING:
    from kenso_git.api.revpool import RevisionPool
    from kenso_git.index.atref import Revision
    from kenso_git.kb import KnowledgeBase
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.ignore import Signature
    from kenso_git.repo.scope import Scope


REVISIONS_DIR = "revisions"  # under the index's folder: the copies made for a revision
_BESIDE = "ref-"  # a copy's folder under revisions/: ref-PID-random
_SCRATCH = "kenso-ref-"  # the same in the temporary folder, where everyone's files are
# the revision cache's name of the view of no scope (the command line's): not "", under
# which the docs were kept before they were the docs ingest admits (a vendored
# `node_modules/` page, a name with `%25` or a backslash were among them)
USER_VIEW = "user"


@contextlib.contextmanager
def at_revision(
    kb: KnowledgeBase,
    ref: str,
    *,
    scope: Scope | None = None,
    view: str = "",
    make: Callable[..., KnowledgeBase] | None = None,
    pool: RevisionPool | None = None,
) -> Iterator[tuple[KnowledgeBase, Revision]]:
    """A knowledge base answering for the docs at `ref`, and what was materialized.

    `scope` keeps the revision's docs a caller's scope hides out of the copy altogether
    (none of their words reach a statistic: the scoped server's rule, #27), and `view` names
    that scope (the revision cache never gives one view's docs to another); without one, the
    copy holds the docs ingest would admit, as the checkout's index does (the user's view,
    `USER_VIEW`). `make` builds the knowledge base over the copy (default: `kb`'s class).
    `pool`: a long-lived reader's copies, kept ready for the next call at the same commit
    (and let go once an ignore-rule file the copy's docs were chosen with changed).

    The ignore rules the copy is made with are read afresh for it, and `scope` judges the
    revision's paths by them (`Scope.judging_by`), never by what the scope read earlier:
    the cache keeps the copy's docs under the files of exactly those rules.

    Raises:
        UsageError: `ref` names no commit, or the work tree is not in git.
        NoIndexError: there is no checkout index to start from.
    """
    from kenso_git.repo.revname import resolve_revision

    commit = resolve_revision(kb.workspace, ref)  # a bad ref is named before any work
    if scope is None:
        view = view or USER_VIEW
    # no refresh of the checkout's index: the copy is compared by blob id, so any state of
    # it gives the docs at `ref` (and a sync's `git status` could rewrite git's index)
    kb.read(lambda _conn: None)  # NoIndexError when there is none
    if pool is None:
        with budget.aside():  # building the index is not the query: not charged to it
            copy = _materialize(kb, ref, commit, scope, view, make)
        try:
            yield copy.kb, copy.revision
        finally:
            copy.close()
        return
    with pool.lease(
        (commit, view), lambda: _materialize(kb, ref, commit, scope, view, make)
    ) as copy:
        yield copy.kb, copy.revision


def _materialize(
    kb: KnowledgeBase,
    ref: str,
    commit: str,
    scope: Scope | None,
    view: str,
    make: Callable[..., KnowledgeBase] | None,
) -> RevisionCopy:
    """The index of the docs at `commit` in a folder of its own under `revisions/`, or
    under the temporary folder where that cannot be written (`_copy_folder`)."""
    from kenso_git.index.atref import CacheUse
    from kenso_git.index.atref import materialize
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.store.revcache import RevisionCache

    # one reading of the ignore rules, this copy's own, judges every path of the revision,
    # and its files alone key the cache entry and the copy: a verdict the scope reached
    # earlier (by rules read at another moment) never reaches either
    rules = IgnoreRules.for_workspace(kb.workspace, kb.settings, watch=True)
    shows = None if scope is None else scope.judging_by(rules.is_ignored).shows
    asked: set[str] = set()  # the folders of the paths judged
    # the markers of a nested repository or an environment folder on their way, as the
    # work tree holds them: `shows` and ingest's own check (`materialize`) judge by them,
    # so they key the copy as rule files do
    markers: dict[str, Signature] = {}

    def hidden(path: str) -> bool:
        folder = path.rpartition("/")[0]
        if folder not in asked:
            asked.add(folder)
            _sign_markers(str(rules.root), folder, markers)  # before anything looks
        # `rules` first, for every path: the folders it reads are those `_judged_by` signs
        return rules.is_ignored(path) or (shows is not None and not shows(path))

    home = kb.db_path.parent
    folder, tmp = _copy_folder(home / REVISIONS_DIR, ref)
    settings = kb.settings
    cache = RevisionCache(home, settings.revision_cache_count, settings.revision_cache_bytes)
    try:
        target = tmp / "index.db"
        use = CacheUse(cache, view, lambda: {**_judged_by(rules, asked), **markers})
        revision = materialize(
            kb.workspace, settings, kb.db_path, target, ref, hidden, use, commit=commit
        )
        at = (make or type(kb))(kb.workspace, settings._replace(query_sync=False), target)
    except sqlite3.OperationalError as err:  # the copy's writes: a full or read-only disk
        shutil.rmtree(tmp, ignore_errors=True)
        raise IndexWriteError(
            f"cannot make the index of the docs at {ref} in {folder}: {err}",
            hint="the copy needs as much room as the index: free some, or search an index "
            "elsewhere with --db",
            path=str(folder),
        ) from err
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return RevisionCopy(at, revision, tmp, revision.rules)


def _judged_by(rules: IgnoreRules, folders: set[str]) -> dict[str, Signature]:
    """The rule files `rules` judged the paths in `folders` by, each signed before it was
    read; and, as absent, the rule-file names of every folder on the way that `rules` did
    not read: the folders the work tree lacked (a folder made later with an ignore file in
    it is a change of the rules as an edit is). A folder that is ignored itself is left
    out: nothing in it can change a verdict under it."""
    from kenso_git.repo.ignore import IGNORE_FILES

    levels = {""}
    for folder in folders:
        parts = folder.split("/") if folder else []
        levels.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    unread = [lv for lv in sorted(levels) if not (lv and rules.is_ignored(lv, is_dir=True))]
    signed = rules.signatures()  # after the probes above: a file they read is signed too
    for level in unread:
        directory = rules.root / level if level else rules.root
        for name in IGNORE_FILES:
            # the key as `rules` writes it: a file it signed keeps its signature
            signed.setdefault(str(directory / name), None)
    return signed


def _sign_markers(root: str, folder: str, signed: dict[str, Signature]) -> None:
    """Sign the markers `repo.foreign` looks for in `folder` and each folder above it (not
    the root's own `.git`), each once: a marker made or removed later changes the key, so a
    copy made before is not served after (nor a cached delta, which names no marker)."""
    from kenso_git.repo.foreign import MARKER_NAMES
    from kenso_git.repo.ignore import _signature as signature  # what `signatures_hold` compares

    while folder:
        base = os.path.join(root, folder)
        if os.path.join(base, MARKER_NAMES[0]) in signed:
            return  # this folder, and every one above it, signed already
        for name in MARKER_NAMES:
            path = os.path.join(base, name)
            signed[path] = signature(path)
        folder = folder.rpartition("/")[0]


def _copy_folder(beside: Path, ref: str) -> tuple[Path, Path]:
    """Where a copy is made, and a new folder of its own there: under `beside` (the index's
    own folder, the one place a read may write, where a cache beside it keeps each copy
    close); or, where that cannot be written (a read-only checkout or mount, a file in its
    place), under the system's temporary folder, private to this user (mode 0700): the
    copy answers the same there.

    Raises:
        IndexWriteError: neither can be written.
    """
    try:
        beside.mkdir(mode=0o700, exist_ok=True)
        sweep(beside)
        return beside, Path(tempfile.mkdtemp(prefix=f"{_BESIDE}{os.getpid()}-", dir=beside))
    except OSError as err:
        first = err
    scratch = Path(tempfile.gettempdir())
    try:
        sweep(scratch, prefix=_SCRATCH)
        return scratch, Path(tempfile.mkdtemp(prefix=f"{_SCRATCH}{os.getpid()}-", dir=scratch))
    except OSError as err:
        raise IndexWriteError(
            f"cannot make the index of the docs at {ref} in {beside} "
            f"({first.strerror or first}) nor in {scratch} ({err.strerror or err})",
            hint="the copy is made beside the index, or in the temporary folder when that "
            "cannot be written: make one of them writable (TMPDIR names another) with room "
            "for one more index, or search an index elsewhere with --db",
            path=str(beside),
        ) from err


def sweep(folder: Path, prefix: str = _BESIDE) -> None:
    """Remove the copies a process that is gone left behind in `folder` (killed before its
    cleanup): folders named `prefix` + its pid + `-`, of this user's only."""
    me = os.geteuid()
    for entry in folder.iterdir():
        if not entry.name.startswith(prefix):
            continue
        pid, sep, _ = entry.name[len(prefix) :].partition("-")
        if not sep or not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            st = entry.lstat()
            if stat.S_ISDIR(st.st_mode) and st.st_uid == me:
                shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def read_at_revision(
    kb: KnowledgeBase, ref: str, path: str, limit: int, shows: Callable[[str], bool]
) -> bytes:
    """The bytes of the file at `path` in commit `ref` (its blob, never the work tree's
    file). A symbolic link of that tree is followed within it as the index follows one: to a
    Markdown file `shows` lets through, else refused.

    Raises:
        UsageError: `ref` names no commit.
        KensoError: no file at `path` in `ref` (a folder, a submodule).
        ScopeError: a link leading to nothing `shows` lets through, or over `limit` bytes.
    """
    from kenso_git.errors import KensoError
    from kenso_git.errors import ScopeError
    from kenso_git.index.atref import entry_at
    from kenso_git.index.atref import followed_entry
    from kenso_git.index.atref import read_blobs
    from kenso_git.repo.revname import resolve_revision
    from kenso_git.repo.workspace import is_markdown

    commit = resolve_revision(kb.workspace, ref)
    if entry_at(kb.workspace, commit, path) is None:
        raise KensoError(
            f"no file at {path} in {ref}",
            hint="use a file_path from search_docs with the same ref",
            path=path,
        )
    found = followed_entry(kb.workspace, commit, path)
    linked = found is not None and found[0] != path
    if found is None or (linked and not (is_markdown(found[0]) and shows(found[0]))):
        raise ScopeError(
            f"path refused (symlink-escape): {path!r} is a symbolic link in {ref} that "
            "leads to nothing the scope shows",
            rule="symlink-escape",
            path=path,
        )
    _real, blob, size = found
    if size > limit:
        raise ScopeError(
            f"path refused (too-large): {path!r} is larger than max-file-size ({limit} bytes)",
            rule="too-large",
            path=path,
        )
    # the blob as stored, like `git show REV:path`: a page under a clean/smudge filter
    # (git-lfs) reads as the pointer its blob is; no filter driver runs (repo/git.py)
    return read_blobs(kb.workspace, [blob])[blob]
