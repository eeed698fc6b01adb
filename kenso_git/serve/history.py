"""What changed between revisions, and agent instruction drift, as the scope shows them.

`changed_docs` lists only docs the agent scope shows today: a path hidden now (outside
`agent-scoped-roots`, or matched by `.cursorignore`, `.kensoignore`, `.gitignore` or
`exclude`) stays hidden at every revision, renamed to or from, deleted or not. The check
is on the path as written, as git names it: a revision's tree has no links to follow.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from typing import cast

from kenso_git.api.git import drift as drift_mod
from kenso_git.api.git import history
from kenso_git.api.workspace import is_markdown

if TYPE_CHECKING:
    from kenso_git.api.git import Drift
    from kenso_git.api.results import ChangedDoc
    from kenso_git.api.results import ChangedDocs
    from kenso_git.api.results import DriftResult
    from kenso_git.serve.service import Service

MAX_CHANGES = 1000  # items in one answer; `truncated` says when more changed


def changed_docs(
    service: Service, since: str, until: str | None, limit: int | None = None
) -> ChangedDocs:
    """The docs the scope shows that differ from `since` to `until` (or the work tree).

    Raises:
        UsageError: a revision is unknown, or the checkout is not a git work tree.
        GitError: git failed.
    """
    scope = service.scope
    scope.reload_if_changed()

    def is_doc(path: str) -> bool:
        return is_markdown(path) and scope.shows(path)

    cap = MAX_CHANGES if limit is None else max(1, min(int(limit), MAX_CHANGES))
    old = history.resolve_revision(service.workspace, since)
    new = None if until is None else history.resolve_revision(service.workspace, until)
    found = history.changes(service.workspace, old, new, is_doc=is_doc)
    items = [cast("ChangedDoc", c.to_dict()) for c in found[:cap]]
    return {
        "since": old,
        "until": new,
        "results": items,
        "total": len(found),
        "truncated": len(found) > cap,
    }


def instruction_drift(service: Service) -> Drift:
    """`repo.drift` of the checkout, keeping only instruction files the scope shows."""
    found = drift_mod.drift(service.workspace)
    shows = service.scope.shows
    return found._replace(files=tuple(f for f in found.files if shows(f.path)))


DRIFT_TTL_S = 30.0  # health_check asks often; the upstream ref moves only on a fetch
_drift_cache: dict[tuple[str, str | None], tuple[float, DriftResult]] = {}


def health_drift(service: Service) -> DriftResult:
    """`instruction_drift` for `health_check`, reused for `DRIFT_TTL_S` while HEAD stays;
    a failure is a reason, never an error (health never raises)."""
    from kenso_git.api.git import head_commit
    from kenso_git.errors import KensoError

    key = (str(service.workspace.root), head_commit(service.workspace))
    now = time.monotonic()
    cached = _drift_cache.get(key)
    if cached is not None and now - cached[0] < DRIFT_TTL_S:
        return cached[1]
    try:
        found = cast("DriftResult", instruction_drift(service).to_dict())
    except KensoError as err:
        found = {
            "drifted": False,
            "upstream": None,
            "upstream_commit": None,
            "behind": 0,
            "files": [],
            "reason": service.shown(err.message),
        }
    _drift_cache.clear()  # one checkout per server
    _drift_cache[key] = (now, found)
    return found
