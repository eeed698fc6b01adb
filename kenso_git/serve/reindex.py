"""The `reindex` answer: the index synced with the work tree, told as the agent scope sees it.

`changed` says whether a doc the scope shows was added, changed or removed: a change to
hidden docs only is no change to the caller (docs/security.md, as `GET /events`), and the
counts are those of the docs the scope shows (`status.visible_counts`, #27).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenso_git.serve import status

if TYPE_CHECKING:
    from kenso_git.api.results import ReindexResult
    from kenso_git.serve.service import Service


def reindexed(service: Service) -> ReindexResult:
    """Sync the index with the work tree (never creating one); whether a doc the scope shows
    changed, and the counts it shows.

    Raises:
        NoIndexError: there is no index.
    """
    kb = service.require_index()
    report = kb.sync(create=False)  # a reader never creates an index (#26)
    with service.scope.gating() as shows:  # a removed file passes: it was there to see
        changed = any(r.status in {"ingested", "removed"} and shows(r.path) for r in report.results)
    seen = status.visible_counts(service, kb)
    out: ReindexResult = {
        "changed": changed,
        "documents": seen.documents,
        "chunks": seen.chunks,
    }
    return out
