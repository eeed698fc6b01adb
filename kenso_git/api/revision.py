"""Search and read the docs as they are in another commit (#29's `--ref`).

`at_revision(kb, ref)` yields a read-only knowledge base over the docs at `ref`: the
checkout's index copied and the differing docs applied (index/atref.py). The work tree,
git's index and HEAD are never touched; the copy lives in a temporary directory and is
removed when the block ends.
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

    with tempfile.TemporaryDirectory(prefix="kenso-ref-") as tmp:
        target = Path(tmp) / "index.db"
        revision = materialize(kb.workspace, kb.settings, kb.db_path, target, ref, hidden)
        at = (make or type(kb))(kb.workspace, kb.settings._replace(query_sync=False), target)
        try:
            yield at, revision
        finally:
            at.close()
