"""The read side's requests and answers for the front ends: the scope gate, the query
language's requests, the result shapes (`search/results.py`), snippets, categories, budgets.

The front ends import these names from here, never from the layers that define them
(the import contract forbids it); each is imported on first use (PEP 562), so a front end
pays only for what it touches, as it did when it imported the defining module itself.
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.repo.scope import Scope as Scope
    from kenso_git.repo.scope import scope_for as scope_for
    from kenso_git.search import results as results
    from kenso_git.search.lang.agent import SearchRequest as SearchRequest
    from kenso_git.search.lang.querylang import parse as parse
    from kenso_git.search.ranked.categories import category_filter as category_filter
    from kenso_git.search.ranked.categories import known_categories as known_categories
    from kenso_git.search.ranked.categories import unknown_category_error as unknown_category_error
    from kenso_git.search.ranked.payload import MULTI_MAX_QUERIES as MULTI_MAX_QUERIES
    from kenso_git.search.ranked.payload import multi_queries as multi_queries
    from kenso_git.search.regex.regex_search import RegexRequest as RegexRequest
    from kenso_git.search.results import AgentPage as AgentPage
    from kenso_git.search.results import ChangedDoc as ChangedDoc
    from kenso_git.search.results import ChangedDocs as ChangedDocs
    from kenso_git.search.results import CorrectedMulti as CorrectedMulti
    from kenso_git.search.results import CorrectedSearch as CorrectedSearch
    from kenso_git.search.results import DocResult as DocResult
    from kenso_git.search.results import DriftResult as DriftResult
    from kenso_git.search.results import ErrorResult as ErrorResult
    from kenso_git.search.results import HealthResult as HealthResult
    from kenso_git.search.results import HitList as HitList
    from kenso_git.search.results import ReindexResult as ReindexResult
    from kenso_git.search.results import RelatedList as RelatedList
    from kenso_git.search.results import RelatedPage as RelatedPage
    from kenso_git.search.results import RelatedRow as RelatedRow
    from kenso_git.search.results import SearchDocsResult as SearchDocsResult
    from kenso_git.search.results import SearchItem as SearchItem
    from kenso_git.search.results import SearchMultiResult as SearchMultiResult
    from kenso_git.search.results import SnippetResult as SnippetResult
    from kenso_git.search.results import StateResult as StateResult
    from kenso_git.search.snippet import make_snippet as make_snippet
    from kenso_git.store.budget import call_budget as call_budget

__all__ = [
    "MULTI_MAX_QUERIES",
    "AgentPage",
    "ChangedDoc",
    "ChangedDocs",
    "CorrectedMulti",
    "CorrectedSearch",
    "DocResult",
    "DriftResult",
    "ErrorResult",
    "HealthResult",
    "HitList",
    "RegexRequest",
    "ReindexResult",
    "RelatedList",
    "RelatedPage",
    "RelatedRow",
    "Scope",
    "SearchDocsResult",
    "SearchItem",
    "SearchMultiResult",
    "SearchRequest",
    "SnippetResult",
    "StateResult",
    "call_budget",
    "category_filter",
    "known_categories",
    "make_snippet",
    "multi_queries",
    "parse",
    "results",
    "scope_for",
    "unknown_category_error",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "AgentPage": ("kenso_git.search.results", "AgentPage"),
    "ChangedDoc": ("kenso_git.search.results", "ChangedDoc"),
    "ChangedDocs": ("kenso_git.search.results", "ChangedDocs"),
    "CorrectedMulti": ("kenso_git.search.results", "CorrectedMulti"),
    "CorrectedSearch": ("kenso_git.search.results", "CorrectedSearch"),
    "DocResult": ("kenso_git.search.results", "DocResult"),
    "DriftResult": ("kenso_git.search.results", "DriftResult"),
    "ErrorResult": ("kenso_git.search.results", "ErrorResult"),
    "HealthResult": ("kenso_git.search.results", "HealthResult"),
    "HitList": ("kenso_git.search.results", "HitList"),
    "MULTI_MAX_QUERIES": ("kenso_git.search.ranked.payload", "MULTI_MAX_QUERIES"),
    "RegexRequest": ("kenso_git.search.regex.regex_search", "RegexRequest"),
    "ReindexResult": ("kenso_git.search.results", "ReindexResult"),
    "RelatedList": ("kenso_git.search.results", "RelatedList"),
    "RelatedPage": ("kenso_git.search.results", "RelatedPage"),
    "RelatedRow": ("kenso_git.search.results", "RelatedRow"),
    "Scope": ("kenso_git.repo.scope", "Scope"),
    "SearchDocsResult": ("kenso_git.search.results", "SearchDocsResult"),
    "SearchItem": ("kenso_git.search.results", "SearchItem"),
    "SearchMultiResult": ("kenso_git.search.results", "SearchMultiResult"),
    "SearchRequest": ("kenso_git.search.lang.agent", "SearchRequest"),
    "SnippetResult": ("kenso_git.search.results", "SnippetResult"),
    "StateResult": ("kenso_git.search.results", "StateResult"),
    "call_budget": ("kenso_git.store.budget", "call_budget"),
    "category_filter": ("kenso_git.search.ranked.categories", "category_filter"),
    "known_categories": ("kenso_git.search.ranked.categories", "known_categories"),
    "make_snippet": ("kenso_git.search.snippet", "make_snippet"),
    "multi_queries": ("kenso_git.search.ranked.payload", "multi_queries"),
    "parse": ("kenso_git.search.lang.querylang", "parse"),
    "results": ("kenso_git.search.results", None),
    "scope_for": ("kenso_git.repo.scope", "scope_for"),
    "unknown_category_error": ("kenso_git.search.ranked.categories", "unknown_category_error"),
}

__getattr__ = resolver(__name__, _NAMES)
