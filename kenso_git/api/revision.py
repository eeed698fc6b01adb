"""Search and read the docs as they are in another commit (#29's `--ref`).

`at_revision(kb, ref)` yields a read-only knowledge base over the docs at `ref`: the
checkout's index copied and the differing docs applied (index/atref.py). The work tree,
git's index and HEAD are never touched; the copy lives in a temporary folder under the
index's own folder (`revisions/`) and is removed when the block ends.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kenso_git.index.atref import Revision
    from kenso_git.kb import KnowledgeBase


REVISIONS_DIR = "revisions"  # under the index's folder: the copies made for a revision


@contextlib.contextmanager
def at_revision(
    kb: KnowledgeBase,
    ref: str,
    *,
    shows: Callable[[str], bool] | None = None,
    make: Callable[..., KnowledgeBase] | None = None,
) -> Iterator[tuple[KnowledgeBase, Revision]]:
    """A knowledge base answering for the docs at `ref`, and what was materialized.

    `shows` keeps the revision's docs a caller's scope hides out of the copy altogether
    (none of their words reach a statistic: the scoped server's rule, #27); `make` builds
    the knowledge base over the copy (default: `kb`'s class).

    Raises:
        UsageError: `ref` names no commit, or the work tree is not in git.
        NoIndexError: there is no checkout index to start from.
    """
    from kenso_git.index.atref import materialize
    from kenso_git.repo.history import resolve_revision
    from kenso_git.repo.ignore import IgnoreRules

    resolve_revision(kb.workspace, ref)  # a bad ref is named before any work
    # no refresh of the checkout's index: the copy is compared by blob id, so any state of
    # it gives the docs at `ref` (and a sync's `git status` could rewrite git's index)
    kb.read(lambda _conn: None)  # NoIndexError when there is none
    rules = IgnoreRules.for_workspace(kb.workspace, kb.settings)

    def hidden(path: str) -> bool:
        return rules.is_ignored(path) or (shows is not None and not shows(path))

    # the copy lives under the index's own root, the one place a read may write
    folder = kb.db_path.parent / REVISIONS_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ref-", dir=folder) as tmp:
        target = Path(tmp) / "index.db"
        revision = materialize(kb.workspace, kb.settings, kb.db_path, target, ref, hidden)
        at = (make or type(kb))(kb.workspace, kb.settings._replace(query_sync=False), target)
        try:
            yield at, revision
        finally:
            at.close()


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
