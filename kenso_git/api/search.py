"""The read side's requests for the front ends: the scope gate, the query language's
requests, page cursors, snippets, categories, budgets (the answers are `api/results.py`).

A facade of the library API (see `api/lazy.py`).
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.repo.scope import Scope as Scope
    from kenso_git.repo.scope import scope_for as scope_for
    from kenso_git.search.graph.kept import NamedGate as NamedGate
    from kenso_git.search.lang.agent import ArgumentValueError as ArgumentValueError
    from kenso_git.search.lang.agent import SearchRequest as SearchRequest
    from kenso_git.search.lang.agent import check_at_revision as check_at_revision
    from kenso_git.search.lang.longquery import parse_long as parse
    from kenso_git.search.pagination import keyset_cursor as keyset_cursor
    from kenso_git.search.pagination import most_that_fit as most_that_fit
    from kenso_git.search.pagination import read_keyset as read_keyset
    from kenso_git.search.pagination import request_check as request_check
    from kenso_git.search.ranked.categories import category_filter as category_filter
    from kenso_git.search.ranked.categories import known_categories as known_categories
    from kenso_git.search.ranked.categories import unknown_category_error as unknown_category_error
    from kenso_git.search.ranked.payload import MULTI_MAX_QUERIES as MULTI_MAX_QUERIES
    from kenso_git.search.ranked.payload import multi_queries as multi_queries
    from kenso_git.search.regex.regex_search import RegexRequest as RegexRequest
    from kenso_git.search.snippet import make_snippet as make_snippet
    from kenso_git.store.budget import budget_stopped as budget_stopped
    from kenso_git.store.budget import call_budget as call_budget
    from kenso_git.store.budget import wait_to_answer as wait_to_answer

__all__ = [
    "MULTI_MAX_QUERIES",
    "ArgumentValueError",
    "NamedGate",
    "RegexRequest",
    "Scope",
    "SearchRequest",
    "budget_stopped",
    "call_budget",
    "category_filter",
    "check_at_revision",
    "keyset_cursor",
    "known_categories",
    "make_snippet",
    "most_that_fit",
    "multi_queries",
    "parse",
    "read_keyset",
    "request_check",
    "scope_for",
    "unknown_category_error",
    "wait_to_answer",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "MULTI_MAX_QUERIES": ("kenso_git.search.ranked.payload", "MULTI_MAX_QUERIES"),
    "ArgumentValueError": ("kenso_git.search.lang.agent", "ArgumentValueError"),
    "NamedGate": ("kenso_git.search.graph.kept", "NamedGate"),
    "RegexRequest": ("kenso_git.search.regex.regex_search", "RegexRequest"),
    "Scope": ("kenso_git.repo.scope", "Scope"),
    "SearchRequest": ("kenso_git.search.lang.agent", "SearchRequest"),
    "budget_stopped": ("kenso_git.store.budget", "budget_stopped"),
    "call_budget": ("kenso_git.store.budget", "call_budget"),
    "category_filter": ("kenso_git.search.ranked.categories", "category_filter"),
    "check_at_revision": ("kenso_git.search.lang.agent", "check_at_revision"),
    "keyset_cursor": ("kenso_git.search.pagination", "keyset_cursor"),
    "known_categories": ("kenso_git.search.ranked.categories", "known_categories"),
    "make_snippet": ("kenso_git.search.snippet", "make_snippet"),
    "most_that_fit": ("kenso_git.search.pagination", "most_that_fit"),
    "multi_queries": ("kenso_git.search.ranked.payload", "multi_queries"),
    # the query as the `search` tool reads it: over the cap, every filter still checked
    "parse": ("kenso_git.search.lang.longquery", "parse_long"),
    "read_keyset": ("kenso_git.search.pagination", "read_keyset"),
    "request_check": ("kenso_git.search.pagination", "request_check"),
    "scope_for": ("kenso_git.repo.scope", "scope_for"),
    "unknown_category_error": ("kenso_git.search.ranked.categories", "unknown_category_error"),
    "wait_to_answer": ("kenso_git.store.budget", "wait_to_answer"),
}

__getattr__ = resolver(__name__, _NAMES)
