"""kenso-git: keep a repository's Markdown docs searchable by AI coding agents.

The public API is `__all__`: `KnowledgeBase` (open, search, read and sync an index), its
settings, its errors and the JSON shapes it returns. Names are imported on first use
(PEP 562): every git hook imports this package, and must not pay for `kb` and its imports.
"""

from __future__ import annotations

# Not `from typing import TYPE_CHECKING`: every command imports this package first, and
# `sync` and `search` start git before typing loads (repo/prestart.py).
TYPE_CHECKING = False

__version__ = "0.1.0"

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.config import load_settings
    from kenso_git.errors import ConfigError
    from kenso_git.errors import DatabaseError
    from kenso_git.errors import DocumentNotFoundError
    from kenso_git.errors import EmptyQueryError
    from kenso_git.errors import ExitCode
    from kenso_git.errors import GitError
    from kenso_git.errors import KensoError
    from kenso_git.errors import NoIndexError
    from kenso_git.errors import NoQueriesError
    from kenso_git.errors import QueryError
    from kenso_git.errors import ScopeError
    from kenso_git.errors import UsageError
    from kenso_git.errors import WorkerError
    from kenso_git.kb import IndexState
    from kenso_git.kb import KnowledgeBase
    from kenso_git.search.results import CategoryCount
    from kenso_git.search.results import CorrectedMulti
    from kenso_git.search.results import CorrectedSearch
    from kenso_git.search.results import DocResult
    from kenso_git.search.results import ErrorResult
    from kenso_git.search.results import HealthResult
    from kenso_git.search.results import HitList
    from kenso_git.search.results import IndexStateDict
    from kenso_git.search.results import ReindexResult
    from kenso_git.search.results import RelatedList
    from kenso_git.search.results import RelatedRow
    from kenso_git.search.results import SearchDocsResult
    from kenso_git.search.results import SearchItem
    from kenso_git.search.results import SearchMultiResult
    from kenso_git.search.results import SnippetResult
    from kenso_git.search.results import StateResult

# public name -> the module that defines it
_LAZY = {
    "KnowledgeBase": "kenso_git.kb",
    "IndexState": "kenso_git.kb",
    "Settings": "kenso_git.config",
    "load_settings": "kenso_git.config",
    **dict.fromkeys(
        (
            "ExitCode",
            "KensoError",
            "UsageError",
            "ConfigError",
            "NoIndexError",
            "DatabaseError",
            "ScopeError",
            "GitError",
            "WorkerError",
            "QueryError",
            "EmptyQueryError",
            "NoQueriesError",
            "DocumentNotFoundError",
        ),
        "kenso_git.errors",
    ),
    **dict.fromkeys(
        (
            "SearchItem",
            "CorrectedSearch",
            "CorrectedMulti",
            "SearchDocsResult",
            "SearchMultiResult",
            "HitList",
            "DocResult",
            "RelatedRow",
            "RelatedList",
            "ErrorResult",
            "SnippetResult",
            "HealthResult",
            "StateResult",
            "ReindexResult",
            "CategoryCount",
            "IndexStateDict",
        ),
        "kenso_git.search.results",
    ),
}

__all__ = [
    "CategoryCount",
    "ConfigError",
    "CorrectedMulti",
    "CorrectedSearch",
    "DatabaseError",
    "DocResult",
    "DocumentNotFoundError",
    "EmptyQueryError",
    "ErrorResult",
    "ExitCode",
    "GitError",
    "HealthResult",
    "HitList",
    "IndexState",
    "IndexStateDict",
    "KensoError",
    "KnowledgeBase",
    "NoIndexError",
    "NoQueriesError",
    "QueryError",
    "ReindexResult",
    "RelatedList",
    "RelatedRow",
    "ScopeError",
    "SearchDocsResult",
    "SearchItem",
    "SearchMultiResult",
    "Settings",
    "SnippetResult",
    "StateResult",
    "UsageError",
    "WorkerError",
    "__version__",
    "load_settings",
]


def __getattr__(name: str) -> object:
    """Import a public name on first access and keep it, so later lookups are plain."""
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
