"""The tools' answers at another revision (#29's `ref`), through the same scope gate.

A path argument is checked as written (`Scope.resolve_as_written`: the work tree need not
hold it), today's scope is applied to every path of the revision (`Scope.shows`), and the
answer is computed over the docs as they are in that commit (`api/revision.py`): the
indexed text for `get_doc` and `search`, the file's blob for `read_snippet`. A hit of
another revision carries no `last_commit`.

Every call first applies the ignore files edited since the last one (`reload_if_changed`),
as the gate of the calls without `ref` does: the scope's verdicts are today's at each call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import TypeVar

if TYPE_CHECKING:
    from kenso_git.api.results import AgentPage
    from kenso_git.api.results import CorrectedSearch
    from kenso_git.api.results import SearchItem
    from kenso_git.api.search import SearchRequest
    from kenso_git.kb import KnowledgeBase
    from kenso_git.serve.service import Service

T = TypeVar("T")


def answer_at(service: Service, ref: str, ask: Callable[[KnowledgeBase], T]) -> T:
    """What `ask` answers over the docs at `ref`, today's scope applied to its paths.

    Raises:
        UsageError: `ref` names no commit.
        NoIndexError: there is no checkout index to start from.
    """
    from kenso_git.api.revision import at_revision
    from kenso_git.kb import KnowledgeBase

    kb, scope = service.require_index(), service.scope
    scope.reload_if_changed()  # before `ask` filters its answer with `scope.shows`
    view = "agent:" + json.dumps(sorted(scope.rel_roots))
    pool = service.revisions
    with at_revision(kb, ref, scope=scope, view=view, make=KnowledgeBase, pool=pool) as (
        at,
        _rev,
    ):
        return ask(at)


def search_docs_at(
    service: Service, ref: str, query: str, category: str | None, limit: int
) -> list[SearchItem] | CorrectedSearch:
    """`search_docs` over the docs at `ref`."""
    shows = service.scope.shows
    return answer_at(
        service,
        ref,
        lambda at: at.search_docs(query, category=category, limit=limit, path_filter=shows),
    )


def agent_page_at(service: Service, ref: str, request: SearchRequest) -> AgentPage:
    """A page of the agent `search` over the docs at `ref`.

    Raises:
        UsageError: the request filters by time (`agent.check_at_revision`), or `ref`
            names no commit.
    """
    from kenso_git.api.search import check_at_revision

    check_at_revision(request)
    shows = service.scope.shows
    return answer_at(service, ref, lambda at: at.agent_search(request, path_filter=shows))


def file_at(service: Service, ref: str, rel: str) -> bytes:
    """The bytes of the file at `rel` in `ref` (never the work tree's), within the caps.

    Raises:
        UsageError: `ref` names no commit.
        KensoError: no regular file at `rel` in `ref`.
        ScopeError: a symbolic link there leads to nothing the scope shows, over
            `max-file-size`, or binary.
    """
    from kenso_git.api.page import page_bytes
    from kenso_git.api.revision import read_at_revision

    kb, limit = service.require_index(), service.settings.max_file_size
    service.scope.reload_if_changed()
    data = read_at_revision(kb, ref, rel, limit, service.scope.shows)
    return page_bytes(rel, data)
