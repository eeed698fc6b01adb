"""Is the index still the work tree? Cheap checks: HEAD and file stat data, no hashing.

HEAD is read from the git files directly (no pygit2 import), so `stats`, the MCP
`index_state` tool and `hooks status` answer in milliseconds.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import Workspace
from kenso_git.store import schema

if TYPE_CHECKING:
    from collections.abc import Callable

    from kenso_git.config import Settings
    from kenso_git.repo.discover import SourceFile
    from kenso_git.store.files import FileRow

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _resolve_ref(ws: Workspace, ref: str, depth: int = 0) -> str | None:
    assert ws.git_dir is not None and ws.common_dir is not None
    for base in (ws.git_dir, ws.common_dir):
        value = _read(base / ref)
        if value is None:
            continue
        if value.startswith("ref:") and depth < 5:
            return _resolve_ref(ws, value[4:].strip(), depth + 1)
        return value if _SHA.match(value) else None
    packed = _read(ws.common_dir / "packed-refs")
    for line in (packed or "").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1] == ref and _SHA.match(parts[0]):
            return parts[0]
    return None


def head_commit(ws: Workspace) -> str | None:
    """The commit HEAD points at; None outside git, on an unborn branch or when unreadable."""
    if ws.git_dir is None:
        return None
    head = _read(ws.git_dir / "HEAD")
    if head is None:
        return None
    if head.startswith("ref:"):
        return _resolve_ref(ws, head[4:].strip())
    return head if _SHA.match(head) else None


# On POSIX the ctime is the kernel's change time: every write, and every `utime` that stamps
# an mtime ahead, sets it to the clock, and nothing sets it back. (Windows reports the
# creation time there, which an edit leaves as it was.)
CTIME_IS_CHANGE_TIME = os.name == "posix"
# The kernel stamps a ctime from a clock that may lag `time.time_ns()` by a tick, and some
# file systems keep whole seconds: a ctime this close to the read could be an edit's after it.
CTIME_SLACK_NS = 1_000_000_000


def stat_matches(sf: SourceFile, row: FileRow | None) -> bool:
    """True when the file's stat data is the row's (it may still be racy: `is_settled`)."""
    return (
        row is not None
        and row.size == sf.size
        and row.mtime_ns == sf.mtime_ns
        and row.ctime_ns == sf.ctime_ns
        and row.inode == sf.inode
    )


def is_settled(mtime_ns: int, ctime_ns: int, seen_ns: int) -> bool:
    """Whether stat data that matches a row's vouches for the bytes the index read at
    `seen_ns`: the file was last written before that read, by its mtime or, when the mtime
    is stamped ahead of the clock (`touch -d`, a tarball, clock skew), by its ctime. A file
    whose mtime is ahead would otherwise be racy until the clock passes it, and each
    query-time check would sync it again (a write per query) though its bytes never
    changed; an edit after the read sets a later ctime, so the stat data no longer matches.
    """
    if mtime_ns < seen_ns:
        return True
    return CTIME_IS_CHANGE_TIME and ctime_ns < seen_ns - CTIME_SLACK_NS


def stat_unchanged(sf: SourceFile, row: FileRow | None) -> bool:
    """True when the stat data matches and the file was not written during that scan."""
    return (
        row is not None
        and stat_matches(sf, row)
        and is_settled(sf.mtime_ns, sf.ctime_ns, row.seen_ns)
    )


def cap_decides_anew(row: FileRow | None, cap: int) -> bool:
    """True when the size cap in force would not leave `row` as it is: a file it skipped
    now fits, or would be skipped with another cap quoted; a file it indexed is now over it.
    Such a file is looked at again even when its stat data did not change (#26)."""
    if row is None:
        return False
    if row.status == FileStatus.LARGE:
        from kenso_git.repo.discover import too_large_detail

        return row.size <= cap or row.detail != too_large_detail(row.size, cap)
    return row.status == FileStatus.INDEXED and row.size > cap


# Why a query's answer is stale while every doc awaits a parse by the settings in force:
# a whole re-parse is too much for a query, so it answers from the index as it is.
REPARSE_DUE = (
    "the index was parsed by another kenso-git version or with other chunk settings "
    "(chunk-size, chunk-overlap); run `kenso-git sync` to parse every doc again"
)


def settings_fingerprint(settings: Settings) -> str:
    """What the chunks depend on: a change re-parses every file."""
    return _fingerprint(settings.chunk_size, settings.chunk_overlap)


@functools.lru_cache(maxsize=8)  # asked by every query-time check: one dump per settings
def _fingerprint(chunk_size: int, overlap: int) -> str:
    # "links": what `files.relations` holds (2: with inline Markdown links, #17); an index
    # made before re-parses every file once, so unchanged files' links are found too.
    # "fences": 2, a list item's fences read as such (`text.fences`): a page whose fence
    # hid its later headings is chunked again
    # "frontmatter": 2, Hugo's TOML front matter read as front matter (`+++`): a page an
    # older index holds as body text is parsed again by its next sync or ingest
    return json.dumps(
        {
            "chunk_size": chunk_size,
            "overlap": overlap,
            "links": 2,
            "fences": 2,
            "frontmatter": 2,
        }
    )


def reparse_due(meta: dict[str, str], settings: Settings) -> bool:
    """Whether the index's chunks were made by other settings or parser versions than these
    (`settings_fingerprint`): the next sync or ingest parses every doc again. An index that
    recorded none (made before the fingerprint) is taken as made by these."""
    return meta.get(schema.META_SETTINGS) not in (None, settings_fingerprint(settings))


def is_stale(
    ws: Workspace,
    settings: Settings,
    meta: dict[str, str],
    stored_files: Callable[[], dict[str, FileRow]],
) -> bool:
    """True when HEAD moved or any Markdown file appeared, vanished or changed content.

    Files whose stat data changed are hashed (only those): a file touched but not
    changed, as git leaves after `git stash` of nothing, does not make the index stale.
    """
    from kenso_git.repo.discover import WalkFacts
    from kenso_git.repo.discover import discover
    from kenso_git.store.meta import meta_scope

    if ws.is_git and head_commit(ws) != (meta.get(schema.META_HEAD) or None):
        return True
    scope = meta_scope(meta)
    stored = stored_files()
    facts = WalkFacts()
    found = discover(ws, settings, scope=scope, facts=facts)
    if {sf.path for sf in found} != set(stored):
        return True
    touched = [sf for sf in found if not stat_unchanged(sf, stored.get(sf.path))]
    if not touched:
        return False
    ids = _blob_ids(ws, touched, saw_attributes=facts.saw_attributes)
    return any(ids.get(sf.path) != stored[sf.path].blob_id for sf in touched)


def _blob_ids(ws: Workspace, files: list[SourceFile], *, saw_attributes: bool) -> dict[str, str]:
    from kenso_git.index.prepare import git_blob_ids
    from kenso_git.repo import git

    paths = [sf.path for sf in files]
    ids = git_blob_ids(ws, paths, saw_attributes=saw_attributes)
    return ids if ids is not None else git.plain_blob_ids(ws.root, paths)
