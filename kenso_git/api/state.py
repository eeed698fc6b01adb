"""`KnowledgeBase.state()`: counts, size and freshness, from running totals (#32)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING
from typing import cast

from kenso_git.api.core import Base
from kenso_git.records import NamedTuple
from kenso_git.store import schema
from kenso_git.store import totals
from kenso_git.store.connection import schema_version
from kenso_git.store.files import file_blob_ids
from kenso_git.store.files import load_files
from kenso_git.store.integrity import check_if_changed
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta
from kenso_git.store.revcache import CacheUsage
from kenso_git.store.revcache import RevisionCache

if TYPE_CHECKING:
    from kenso_git.search.results import IndexStateDict
    from kenso_git.store.files import FileRow


WORKTREE_CHANGED = "the work tree changed since the last sync; run `kenso-git sync`"


class IndexState(NamedTuple):
    """Counts, size and freshness of the index."""

    root: str
    db_path: str
    documents: int
    chunks: int
    links: int
    db_bytes: int
    content_bytes: int
    schema_version: int
    as_of: str | None  # HEAD commit at the last sync (None outside git or on an unborn branch)
    synced_at: float | None  # Unix time of the last sync
    stale: bool | None  # the work tree no longer matches the index (None: not checked)
    stale_reason: str | None  # why `stale`, and what to do (None: fresh or not checked)
    worktree_differs: bool | None  # at the last sync, the docs differed from HEAD's
    scope: list[str]
    categories: list[tuple[str | None, int, int]]  # (category, documents, chunks)
    revision_cache: CacheUsage  # what search --ref keeps beside the index (#29)

    def to_dict(self) -> IndexStateDict:
        """The state as JSON-ready data (what `stats --json` prints), fields in order."""
        data: dict[str, object] = self._asdict()  # the fields, in declaration order
        data["categories"] = [
            {"category": c, "documents": d, "chunks": k} for c, d, k in self.categories
        ]
        cache = self.revision_cache
        data["revision_cache"] = {
            "path": cache.path,
            "count": len(cache.revisions),
            "bytes": cache.bytes,
            "file_bytes": cache.file_bytes,
            "max_count": cache.max_count,
            "max_bytes": cache.max_bytes,
            "revisions": [
                {
                    "commit": r.commit,
                    "ref": r.ref,
                    "differing": r.differing,
                    "bytes": r.bytes,
                    "used_at": r.used,
                }
                for r in cache.revisions
            ],
        }
        return cast("IndexStateDict", data)


class _Snapshot(NamedTuple):
    """What `state()` reads, all in one read transaction (one committed index)."""

    counts: tuple[int, int, int, int, int]
    meta: dict[str, str]
    categories: list[tuple[str | None, int, int]]
    files: dict[str, FileRow]


class StateReads(Base):
    """What the index holds and whether it is current (see `KnowledgeBase`)."""

    def state(self, *, check_stale: bool = True) -> IndexState:
        """Counts, size and freshness. `check_stale` walks the work tree (a few ms).

        Raises:
            NoIndexError: there is no index.
            CorruptIndexError: the index file is damaged (store/connection.py,
                `check_if_changed`).
            DatabaseError: the index cannot be read.
        """
        known = self._known_differs()
        db_path = self.db_path
        snap = self.read(lambda conn: _state_snapshot(conn, db_path, with_files=check_stale))
        counts, meta = snap.counts, snap.meta
        scope = meta_scope(meta)
        lost = self.lost_root  # a root gone (or another repository): never compared (#26)
        why = self._stale_reason(meta, snap.files) if check_stale else None
        synced = meta.get(schema.META_SYNCED_AT)
        return IndexState(
            root=str(self.workspace.root) if lost is None else lost,
            db_path=str(self.db_path),
            documents=counts[0],
            chunks=counts[1],
            links=counts[2],
            db_bytes=_db_bytes(self.db_path),
            content_bytes=counts[3],
            schema_version=counts[4],
            as_of=meta.get(schema.META_HEAD) or None,
            synced_at=float(synced) if synced else None,
            stale=None if not check_stale else why is not None,
            stale_reason=why,
            worktree_differs=self._worktree_differs(meta, scope, snap.files, known),
            scope=scope,
            categories=snap.categories,
            revision_cache=RevisionCache(
                self.db_path.parent,
                self.settings.revision_cache_count,
                self.settings.revision_cache_bytes,
            ).usage(),
        )

    def _stale_reason(self, meta: dict[str, str], files: dict[str, FileRow]) -> str | None:
        """Why the index is not the work tree as this code would index it, None: it is."""
        from kenso_git.index import freshness

        if self.lost_root is not None:
            from kenso_git.index.home import lost_reason

            return lost_reason(self.lost_root)
        if freshness.reparse_due(meta, self.settings):
            return freshness.REPARSE_DUE
        if freshness.is_stale(self.workspace, self.settings, meta, lambda: files):
            return WORKTREE_CHANGED
        return None

    def _known_differs(self) -> bool | None:
        """Whether the docs differ from HEAD's, as the last query-time check's `git status`
        said (None: not known, or HEAD moved since)."""
        fresh = self.freshness
        if fresh is None or fresh.stale or fresh.differs is None:
            return None
        from kenso_git.index.freshness import head_commit

        return fresh.differs if fresh.head == head_commit(self.workspace) else None

    def _worktree_differs(
        self, meta: dict[str, str], scope: list[str], files: dict[str, FileRow], known: bool | None
    ) -> bool | None:
        """As recorded by the last full sync; when a hook's targeted sync left it open, as the
        last check's `git status` said (`known`), else worked out now (one `git ls-tree`
        and every files row, kept for this write generation and HEAD)."""
        recorded = meta.get(schema.META_WORKTREE_DIRTY)
        if recorded in ("0", "1"):
            return recorded == "1"
        if not self.workspace.is_git or recorded is None or self.lost_root is not None:
            return None  # (the work tree at hand is not the index's: nothing to compare)
        if known is not None:
            return known
        from kenso_git.index.freshness import head_commit
        from kenso_git.index.run import differs_from_head

        key = (meta.get(schema.META_GENERATION), head_commit(self.workspace))
        cached: tuple[object, bool | None] | None = getattr(self, "_differs", None)
        if cached is None or cached[0] != key:
            blobs = (
                {path: row.blob_id or "" for path, row in files.items()}
                if files
                else self.read(file_blob_ids)
            )
            found = differs_from_head(self.workspace, self.settings, scope, blobs)
            cached = self._differs = (key, found)
        return cached[1]


def _state_snapshot(conn: sqlite3.Connection, db_path: Path, *, with_files: bool) -> _Snapshot:
    # damage a sync would name is named here too, not reported as a healthy index: pages are
    # read only when the file changed since a writer left it (a stat otherwise)
    check_if_changed(conn, db_path)
    meta = read_meta(conn)
    files = load_files(conn) if with_files else {}  # for the staleness check
    kept = totals.read(conn)  # running totals: a few rows whatever the index's size (#32)
    version = schema_version(conn)
    counts = (kept.documents, kept.chunks, kept.links, kept.content_bytes, version)
    return _Snapshot(counts, meta, kept.categories, files)


def _db_bytes(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += Path(f"{path}{suffix}").stat().st_size
        except OSError:
            continue
    return total
