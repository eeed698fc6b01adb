"""What the scoped index of a server is made of (#27, finding 6): where it lives, which
folders it covers, which of its files' rows lag the main index's, and its writes, run by
the ordinary writer. `serve/scoped.py` keeps it in step with the main index."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.store.meta import meta_scope

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.repo.workspace import Workspace
    from kenso_git.store.files import FileRow

SCOPES_DIR = "scopes"


def covered(meta: dict[str, str]) -> list[str]:
    """The folders an index covers, from its meta rows."""
    return meta_scope(meta)


def write(
    workspace: Workspace,
    settings: Settings,
    db_path: Path,
    folders: list[str],
    *,
    only: list[str] | None = None,
    rebuild: bool = False,
    head: str | None = None,
) -> None:
    """Build (or, with `only`, sync those paths of) the scoped index at `db_path`, in one
    transaction of the ordinary writer under its own lock.

    Raises:
        DatabaseError: the index cannot be written.
    """
    from kenso_git.index.build import run_index

    run_index(
        workspace,
        settings,
        db_path,
        scope=None if only else folders,  # the stored scope: a sync walks no tree
        only=only,
        rebuild=rebuild,
        head=head,
    )


def scoped_folders(indexed: Sequence[str], shown: Sequence[str]) -> list[str]:
    """The folders both the main index covers (`indexed`, "" for all) and the scope shows
    (`shown`, "." for all): for each pair, the deeper one when one holds the other."""
    out: list[str] = []
    for a in indexed:
        for b in ("" if s == "." else s for s in shown):
            if a == "" or b == a or b.startswith(a + "/"):
                pick = b
            elif b == "" or a.startswith(b + "/"):
                pick = a
            else:
                continue
            if pick not in out:
                out.append(pick)
    return sorted(out)


def scoped_db_path(main_db: Path, shown: Sequence[str]) -> Path:
    """Where the scoped index of `shown` beside `main_db` lives: one file per index and scope."""
    key = "\0".join([main_db.name, *sorted(shown)])
    name = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return main_db.parent / SCOPES_DIR / f"{name}.db"


def inside(path: str, folders: Sequence[str]) -> bool:
    return any(f == "" or path == f or path.startswith(f + "/") for f in folders)


Key = tuple[str, str, int, int, int, int]


def key(row: FileRow | None) -> Key | None:
    """What a files row says: the text (blob id, status) and the file it was read from (its
    stat data, which `get_doc`'s disk check and the gate's inode check compare with the file
    on disk). A same-bytes rewrite (a checkout and back, an editor's save, `touch`) changes
    only the stat data: a scoped index that kept the old would refuse the file for good."""
    if row is None:
        return None
    return (row.blob_id, row.status, row.size, row.mtime_ns, row.ctime_ns, row.inode)


def _racy(row: FileRow) -> bool:
    """The file was written while the row was made: the row sends it to be read again."""
    return row.mtime_ns >= row.seen_ns


def behind(main: FileRow, scoped: FileRow | None) -> bool:
    """Whether the scoped index's row of a path must be synced to follow the main index's:
    they differ in text or stat data, or only the scoped one is racy (the main index read
    the file again, found it unchanged and refreshed only its `seen_ns`)."""
    if scoped is None or key(scoped) != key(main):
        return True
    return _racy(scoped) and not _racy(main)


def differing(
    main: dict[str, FileRow],
    scoped: dict[str, FileRow],
    folders: Sequence[str],
    refused: set[str],
) -> list[str]:
    """The paths under `folders` whose row the scoped index must sync to follow the main
    index's (`behind`), the refused ones expected absent from the scoped index."""
    out = [
        path
        for path, row in main.items()
        if inside(path, folders) and path not in refused and behind(row, scoped.get(path))
    ]
    out += [path for path in scoped if path not in main or path in refused]
    return sorted(out)


def escaped(path: str) -> str:
    """`path` as a gitignore pattern matching itself only."""
    out = "".join("\\" + c if c in "\\*?[]!#" else c for c in path)
    return out[:-1] + "\\ " if out.endswith(" ") else out
