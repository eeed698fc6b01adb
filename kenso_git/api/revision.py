"""Search and read the docs as they are in another commit (#29's `--ref`).

`at_revision(kb, ref)` yields a read-only knowledge base over the docs at `ref`: the
checkout's index copied and the differing docs applied (index/atref.py), those docs and
their texts kept in the revision cache for the next time (store/revcache.py). The work
tree, git's index and HEAD are never touched; the copy lives in a temporary folder under
the index's own folder (`revisions/`) and is removed when the block ends, or, for a server,
when its pool lets it go (api/revpool.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.api.revpool import RevisionCopy
from kenso_git.errors import IndexWriteError

if TYPE_CHECKING:
    from kenso_git.api.revpool import RevisionPool
    from kenso_git.index.atref import Revision
    from kenso_git.kb import KnowledgeBase


REVISIONS_DIR = "revisions"  # under the index's folder: the copies made for a revision


@contextlib.contextmanager
def at_revision(
    kb: KnowledgeBase,
    ref: str,
    *,
    shows: Callable[[str], bool] | None = None,
    view: str = "",
    make: Callable[..., KnowledgeBase] | None = None,
    pool: RevisionPool | None = None,
) -> Iterator[tuple[KnowledgeBase, Revision]]:
    """A knowledge base answering for the docs at `ref`, and what was materialized.

    `shows` keeps the revision's docs a caller's scope hides out of the copy altogether
    (none of their words reach a statistic: the scoped server's rule, #27), and `view` names
    that scope (the revision cache never gives one view's docs to another); `make` builds
    the knowledge base over the copy (default: `kb`'s class). `pool`: a long-lived reader's
    copies, kept ready for the next call at the same commit.

    Raises:
        UsageError: `ref` names no commit, or the work tree is not in git.
        NoIndexError: there is no checkout index to start from.
    """
    from kenso_git.repo.history import resolve_revision

    commit = resolve_revision(kb.workspace, ref)  # a bad ref is named before any work
    # no refresh of the checkout's index: the copy is compared by blob id, so any state of
    # it gives the docs at `ref` (and a sync's `git status` could rewrite git's index)
    kb.read(lambda _conn: None)  # NoIndexError when there is none
    if pool is None:
        copy = _materialize(kb, ref, commit, shows, view, make)
        try:
            yield copy.kb, copy.revision
        finally:
            copy.close()
        return
    with pool.lease(
        (commit, view), lambda: _materialize(kb, ref, commit, shows, view, make)
    ) as copy:
        yield copy.kb, copy.revision


def _materialize(
    kb: KnowledgeBase,
    ref: str,
    commit: str,
    shows: Callable[[str], bool] | None,
    view: str,
    make: Callable[..., KnowledgeBase] | None,
) -> RevisionCopy:
    """The index of the docs at `commit` in a folder of its own under `revisions/`."""
    from kenso_git.index.atref import CacheUse
    from kenso_git.index.atref import materialize
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.store.revcache import RevisionCache

    rules = IgnoreRules.for_workspace(kb.workspace, kb.settings, watch=True)

    def hidden(path: str) -> bool:
        return rules.is_ignored(path) or (shows is not None and not shows(path))

    # the copy lives under the index's own root, the one place a read may write
    home = kb.db_path.parent
    folder = home / REVISIONS_DIR
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        sweep(folder)
        tmp = Path(tempfile.mkdtemp(prefix=f"ref-{os.getpid()}-", dir=folder))
    except OSError as err:
        raise IndexWriteError(
            f"cannot make the index of the docs at {ref} in {folder}: {err.strerror or err}",
            hint="the copy lives beside the index: make that folder writable (and give it "
            "room for one more index), or search an index elsewhere with --db",
            path=str(folder),
        ) from err
    settings = kb.settings
    cache = RevisionCache(home, settings.revision_cache_count, settings.revision_cache_bytes)
    try:
        target = tmp / "index.db"
        use = CacheUse(cache, view, rules.signatures)
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
    return RevisionCopy(at, revision, tmp, rules.signatures())


def sweep(folder: Path) -> None:
    """Remove the copies a process that is gone left behind (killed before its cleanup)."""
    for entry in folder.iterdir():
        parts = entry.name.split("-")
        if len(parts) < 3 or parts[0] != "ref" or not parts[1].isdigit():
            continue
        if not _alive(int(parts[1])):
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
    from kenso_git.repo.history import resolve_revision
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
    return read_blobs(kb.workspace, [blob])[blob]
