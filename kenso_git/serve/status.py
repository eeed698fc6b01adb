"""The `health_check` and `index_state` answers, and what an agent scope shows of the index.

Under `agent-scoped-roots` an agent learns nothing of the documents its scope hides (#27):
the counts are those of the documents, chunks and links the scope gate shows, `root` is
`"."` rather than the checkout's absolute path, a stale reason counts no docs, and
`GET /events` compares a digest of the visible documents (`visible_docs`).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from kenso_git import __version__
from kenso_git.api.search import budget_stopped
from kenso_git.api.search import wait_to_answer
from kenso_git.api.state import WORKTREE_CHANGED
from kenso_git.errors import CorruptIndexError
from kenso_git.errors import KensoError
from kenso_git.errors import NoIndexError

if TYPE_CHECKING:
    from kenso_git.api.index import ScopedCounts
    from kenso_git.api.results import HealthResult
    from kenso_git.api.results import QueryWatchResult
    from kenso_git.api.results import StateResult
    from kenso_git.kb import IndexState
    from kenso_git.kb import KnowledgeBase
    from kenso_git.serve.service import Service

WATCHER_STARTING = "the watcher is starting"

SYNC_HINT = "run `kenso-git sync`"


def visible_counts(
    service: Service, kb: KnowledgeBase, state: IndexState | None = None
) -> ScopedCounts:
    """The documents, chunks and links the scope shows (#27: never the hidden ones).

    A scope of the whole checkout shows every indexed document once the query-time check
    found the index equal to the work tree: its counts are then the running totals of
    `state` (a few rows, #32), not a pass of the gate over every document. Otherwise (a
    scope, query-sync off, a change too large for a query) each document is gated."""
    from kenso_git.api.index import ScopedCounts
    from kenso_git.api.index import scoped_counts

    fresh = kb.freshness is not None and not kb.freshness.stale
    if not service.scoped and fresh:
        st = state if state is not None else kb.state(check_stale=False)
        return ScopedCounts(st.documents, st.chunks, st.links)
    with service.gated() as shows, service.scope.gating() as names:
        return kb.read(lambda conn: scoped_counts(conn, shows, names))


def visible_docs(service: Service) -> str:
    """A digest of the (path, blob id) of every document the scope shows: it changes when,
    and only when, a visible document changed (`GET /events` compares it)."""
    from kenso_git.api.index import indexed_blobs

    with service.gated() as gate:
        rows = service.main_kb().read(lambda conn: [r for r in indexed_blobs(conn) if gate(r[0])])
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def health_of(service: Service) -> HealthResult:
    """Whether the index is usable; never raises for a missing or broken index."""
    out: HealthResult = {
        "ok": False,
        "reason": None,
        "index": "missing",
        "documents": 0,
        "chunks": 0,
        "schema_version": None,
        "as_of": None,
        "stale": None,
        "stale_reason": None,
        "worktree_differs": None,
        "version": __version__,
        "read_only": not service.offers_writes,  # no tool this server offers writes
        "watcher_ok": None,
        "watcher_reason": None,
        "query_watch": query_watch(service),
    }
    if service.workspace.is_git:
        from kenso_git.serve.history import health_drift

        out["drift"] = health_drift(service)
    _after_catch_up(service)
    out["watcher_ok"], out["watcher_reason"] = watcher_health(service)  # as it is after it
    st: IndexState | None = None
    try:
        kb = service.kb()
        kb.refresh()  # like every read tool: answer about the work tree as it is now
        st = kb.state(check_stale=kb.freshness is None)  # the check just looked (#32)
        seen = visible_counts(service, kb, st)
    except NoIndexError as err:
        out["reason"] = service.shown(_reason(err))
        return out
    except Exception as err:  # a read the budget stopped may surface as SQLite's error
        if budget_stopped(err):  # what it did not learn is unknown, never ok
            return _unchecked(service, out, st)
        if not isinstance(err, KensoError):
            raise
        out["index"] = "error"
        out["reason"] = service.shown(_reason(err))
        return out
    usable = seen.documents > 0
    out["ok"] = usable
    out["reason"] = None if usable else _why_empty(service, st.documents)
    out["index"] = "ok" if usable else "empty"
    out["documents"] = seen.documents
    out["chunks"] = seen.chunks
    out["schema_version"] = st.schema_version
    out["as_of"] = st.as_of
    out["stale"], out["stale_reason"] = _staleness(service, st)
    out["worktree_differs"] = st.worktree_differs
    out["query_watch"] = query_watch(service)  # as the check just now left it
    return out


def _unchecked(service: Service, out: HealthResult, st: IndexState | None) -> HealthResult:
    """`out` for a health check its budget stopped before it had read the index through:
    ok false, what it had learnt (the schema and commit of a state it read), the rest
    unknown, and why."""
    out["index"] = "unchecked"
    if st is not None:
        out["schema_version"], out["as_of"] = st.schema_version, st.as_of
    settings = service.settings
    out["reason"] = (
        f"the health check used up its budget (`call-budget` {settings.call_budget} s, "
        f"`call-cpu-budget` {settings.call_cpu_budget} ms) before it had read the index "
        "(busy, or too large to count in time): its documents, chunks and staleness were "
        "not checked; try again, or raise those settings"
    )
    return out


def query_watch(service: Service) -> QueryWatchResult | None:
    """Whether the query-time check is vouched for by the main index's inotify watch (the
    index a scoped index follows); its reason names no path. None when the scope hides part
    of the tree: the watch covers the whole tree, and its state tells of hidden folders (a
    hard-linked doc or a mount there sets it aside, their count may pass the watch limit;
    #27: nothing an agent sees may depend on what its scope hides)."""
    if service.scoped:
        return None
    report = service.main_kb().query_watch(one_shot=service.one_shot)
    return {"state": report.state, "reason": report.reason, "folders": report.folders}


def state_of(service: Service) -> StateResult:
    """Counts, size and freshness of the index, and the scoped roots.

    Raises:
        NoIndexError: there is no index.
    """
    _after_catch_up(service)
    kb = service.kb()
    kb.refresh()
    st = kb.state(check_stale=kb.freshness is None)  # the check just looked (#32)
    seen = visible_counts(service, kb, st)
    stale, reason = _staleness(service, st)
    return {
        "documents": seen.documents,
        "chunks": seen.chunks,
        "links": seen.links,
        "db_bytes": st.db_bytes,
        "schema_version": st.schema_version,
        "as_of": st.as_of,
        "synced_at": st.synced_at,
        "stale": stale,
        "stale_reason": reason,
        "worktree_differs": st.worktree_differs,
        # an agent confined to some folders need not learn where the checkout lives
        "root": "." if service.scoped else str(st.root),
        "scoped_roots": list(service.scope.rel_roots),
        "query_watch": query_watch(service),
    }


def _reason(err: KensoError) -> str:
    text = f"{err.message}; {err.hint}" if err.hint else err.message
    if isinstance(err, CorruptIndexError) and err.path:
        return f"{err.path}: {text}"  # which file the rebuild replaces
    return text


def _why_empty(service: Service, indexed: int) -> str:
    if indexed and service.scoped:
        roots = ", ".join(service.scope.rel_roots)
        return f"no indexed document lies in the agent scope ({roots})"
    return "the index is empty; run `kenso-git ingest`"


def _after_catch_up(service: Service) -> None:
    """Wait (10 s at most, and never past what the call's budget can spare) for the
    watcher's first check: a state read beside it would answer before the catch-up and
    walk the tree twice at once (twice the memory)."""
    if service.watcher is not None:
        wait = wait_to_answer(10.0)
        wait = 10.0 if wait is None else wait
        service.watcher.wait_until(lambda st: st.checks >= 1 or st.mode == "stopped", wait)


def query_stale(service: Service) -> str | None:
    """Why the last answer may miss recent edits (the query-time sync gave up, failed or
    could not run), as the agent may read it, or None: it was fresh. A scoped agent's
    reason counts no docs (#26); no reason names a host path (`Service.shown`)."""
    fresh = service.kb().freshness
    if fresh is None or not fresh.stale:
        return None
    if service.scoped and fresh.too_many:
        return f"more docs changed than a query syncs; {SYNC_HINT}"
    return service.shown(fresh.reason or f"the index may be out of date; {SYNC_HINT}")


def _staleness(service: Service, st: IndexState) -> tuple[bool | None, str | None]:
    """`stale` and its reason: the query-time sync's verdict, else the state's own check."""
    kb = service.kb()
    reason = query_stale(service)
    if reason is not None:
        return True, reason
    if kb.freshness is not None and st.stale is None:
        return False, None  # the query-time check found nothing it could not sync
    if st.stale and st.stale_reason != WORKTREE_CHANGED:
        return True, service.shown(st.stale_reason)  # another parse due, a root gone
    if st.stale:
        off = "" if kb.settings.query_sync else " and query-sync is off"
        return True, f"the work tree changed since the last sync{off}; {SYNC_HINT}"
    return st.stale, None


def watcher_health(service: Service) -> tuple[bool | None, str | None]:
    """`watcher_ok` and its reason for `health_check`: null only when it is off; false
    while it starts (its catch-up not done), once it stopped, or when it failed."""
    if service.watcher is None:
        if service.watch_error is not None:
            return False, service.shown(service.watch_error)
        if service.watch_planned:
            return False, WATCHER_STARTING
        return None, "the watcher is off (serve --no-watch or watch = false)"
    st = service.watcher.status()
    if st.ok is False:
        return False, service.shown(st.reason)
    if st.mode == "stopped":
        return False, "the watcher has stopped (the server is shutting down)"
    if st.ok is None:
        return False, WATCHER_STARTING
    if st.mode == "starting":  # caught up; its file events are being set up
        return True, "watching (caught up, setting up file events)"
    return True, f"watching ({st.mode})"
