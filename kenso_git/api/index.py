"""The index file as the hooks and the watcher handle it: the writer's lock and rerun mark,
WAL checkpoints, the files and meta rows, counts under a scope, the watcher's sequence.

A facade of the library API (see `api/lazy.py`).
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.index.freshness import reparse_due as reparse_due
    from kenso_git.index.home import open_at as open_at
    from kenso_git.index.lock import DIRTY_FILE as DIRTY_FILE
    from kenso_git.index.lock import HOOK_WAIT_S as HOOK_WAIT_S
    from kenso_git.index.lock import LOCK_FILE as LOCK_FILE
    from kenso_git.index.lock import coalesced as coalesced
    from kenso_git.index.lock import holder as holder
    from kenso_git.index.lock import try_lock as try_lock
    from kenso_git.index.refresh import pending as pending
    from kenso_git.index.watchseq import CHECK_EVERY_S as CHECK_EVERY_S
    from kenso_git.index.watchseq import WatchSeq as WatchSeq
    from kenso_git.index.watchseq import git_stamp as git_stamp
    from kenso_git.store import schema as schema
    from kenso_git.store.connection import set_write_wait as set_write_wait
    from kenso_git.store.counts import ScopedCounts as ScopedCounts
    from kenso_git.store.counts import indexed_blobs as indexed_blobs
    from kenso_git.store.counts import scoped_counts as scoped_counts
    from kenso_git.store.faults import file_failure as file_failure
    from kenso_git.store.files import FileRow as FileRow
    from kenso_git.store.files import indexed_paths as indexed_paths
    from kenso_git.store.files import load_files as load_files
    from kenso_git.store.meta import read_meta as read_meta
    from kenso_git.store.wal import defer_checkpoints as defer_checkpoints
    from kenso_git.store.wal import settle_detached as settle_detached

__all__ = [
    "CHECK_EVERY_S",
    "DIRTY_FILE",
    "HOOK_WAIT_S",
    "LOCK_FILE",
    "FileRow",
    "ScopedCounts",
    "WatchSeq",
    "coalesced",
    "defer_checkpoints",
    "file_failure",
    "git_stamp",
    "holder",
    "indexed_blobs",
    "indexed_paths",
    "load_files",
    "open_at",
    "pending",
    "read_meta",
    "reparse_due",
    "schema",
    "scoped_counts",
    "set_write_wait",
    "settle_detached",
    "try_lock",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "CHECK_EVERY_S": ("kenso_git.index.watchseq", "CHECK_EVERY_S"),
    "DIRTY_FILE": ("kenso_git.index.lock", "DIRTY_FILE"),
    "FileRow": ("kenso_git.store.files", "FileRow"),
    "HOOK_WAIT_S": ("kenso_git.index.lock", "HOOK_WAIT_S"),
    "LOCK_FILE": ("kenso_git.index.lock", "LOCK_FILE"),
    "ScopedCounts": ("kenso_git.store.counts", "ScopedCounts"),
    "WatchSeq": ("kenso_git.index.watchseq", "WatchSeq"),
    "git_stamp": ("kenso_git.index.watchseq", "git_stamp"),
    "coalesced": ("kenso_git.index.lock", "coalesced"),
    "defer_checkpoints": ("kenso_git.store.wal", "defer_checkpoints"),
    "file_failure": ("kenso_git.store.faults", "file_failure"),
    "holder": ("kenso_git.index.lock", "holder"),
    "indexed_blobs": ("kenso_git.store.counts", "indexed_blobs"),
    "indexed_paths": ("kenso_git.store.files", "indexed_paths"),
    "load_files": ("kenso_git.store.files", "load_files"),
    "open_at": ("kenso_git.index.home", "open_at"),
    "pending": ("kenso_git.index.refresh", "pending"),
    "read_meta": ("kenso_git.store.meta", "read_meta"),
    "reparse_due": ("kenso_git.index.freshness", "reparse_due"),
    "schema": ("kenso_git.store.schema", None),
    "scoped_counts": ("kenso_git.store.counts", "scoped_counts"),
    "set_write_wait": ("kenso_git.store.connection", "set_write_wait"),
    "settle_detached": ("kenso_git.store.wal", "settle_detached"),
    "try_lock": ("kenso_git.index.lock", "try_lock"),
}

__getattr__ = resolver(__name__, _NAMES)
