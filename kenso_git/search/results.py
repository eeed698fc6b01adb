"""The JSON shapes the library and the MCP tools return (spec §5.3), as TypedDicts: the one
vocabulary of answers (#28). The MCP tools' output schemas are made from these very types
(`serve/mcp/tools.py` names each tool's), so a shape and what the server announces for it cannot
drift apart; `docs/mcp-tools.md` shows them.

At run time every payload is an ordinary dict, so the JSON is unchanged. The reading modules
(search, the CLI) import this module for type checkers only: before Python 3.12 pydantic,
which turns these types into the MCP output schemas, needs `typing_extensions`' TypedDict,
a ~25 ms import no `kenso-git search` should pay.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING
from typing import NotRequired

if TYPE_CHECKING or sys.version_info >= (3, 12):
    from typing import TypedDict
else:  # pragma: no cover - the version the CI runs decides which line is taken
    from typing_extensions import TypedDict


class CommitInfo(TypedDict):
    """The last commit that changed a document: what `last_commit` holds (#29)."""

    id: str
    time: int | None  # committer time, Unix seconds
    subject: str | None


class SearchItem(TypedDict):
    """One search hit, keys in kenso's order; the optional three only when non-empty."""

    file_path: str
    title: str | None  # None: a document without a heading or a title
    category: str | None
    content_preview: str
    match_source: str
    score: float
    cascade_stage: str | None  # AND, NEAR, OR; None for a file-path fallback hit
    relevance: str
    tags: NotRequired[list[str]]
    related_count: NotRequired[int]
    highlight: NotRequired[str]
    last_commit: NotRequired[CommitInfo]  # MCP: the commit that last changed the doc (#29)
    uncommitted: NotRequired[bool]  # MCP: the doc differs from HEAD's (or is not in it)


class CorrectedSearch(TypedDict):
    """`search_docs` after the typo fallback corrected the query."""

    corrected_query: str
    original_query: str
    results: list[SearchItem]
    truncated: NotRequired[bool]  # set by the MCP service when it cut results to fit
    stale: NotRequired[bool]  # set by the MCP service: the answer may miss recent edits
    stale_reason: NotRequired[str]


class CorrectedMulti(TypedDict):
    """`search_multi` when some of its queries were corrected: query -> correction."""

    corrections: dict[str, str]
    results: list[SearchItem]
    truncated: NotRequired[bool]  # set by the MCP service when it cut results to fit
    stale: NotRequired[bool]  # set by the MCP service: the answer may miss recent edits
    stale_reason: NotRequired[str]


SearchDocsResult = list[SearchItem] | CorrectedSearch
SearchMultiResult = list[SearchItem] | CorrectedMulti


class HitList(TypedDict):
    """A bare hit array as MCP structured content, which must be an object."""

    results: list[SearchItem]
    truncated: NotRequired[bool]
    stale: NotRequired[bool]
    stale_reason: NotRequired[str]


class SearchAnswer(TypedDict):
    """`search_docs` and `search_multi` as MCP structured content: the hits, and what the
    text payload's corrected shapes add (the structured content must be one object)."""

    results: list[SearchItem]
    corrected_query: NotRequired[str]
    original_query: NotRequired[str]
    corrections: NotRequired[dict[str, str]]  # search_multi: query -> its correction
    read_as_words: NotRequired[list[str]]
    truncated: NotRequired[bool]
    stale: NotRequired[bool]
    stale_reason: NotRequired[str]


class DocResult(TypedDict):
    """`get_doc`: the document's chunks joined, with its metadata."""

    title: str | None
    content: str
    category: str | None
    audience: str | None
    tags: list[str] | None
    truncated: NotRequired[bool]
    last_commit: NotRequired[CommitInfo]  # MCP: the commit that last changed the doc (#29)
    uncommitted: NotRequired[bool]
    stale: NotRequired[bool]  # set by the MCP service: the index could not take recent edits
    stale_reason: NotRequired[str]


class RelatedRow(TypedDict):
    """One `get_related` row; `via` names the node a row at depth >= 2 was reached from."""

    related_path: str
    relation_type: str
    direction: str  # incoming or outgoing
    depth: int
    via: NotRequired[str]


class RelatedList(TypedDict):
    """`get_related` rows as MCP structured content; the text too, when it is not the whole
    list (cut to the answer cap, or a later page): `total`, `truncated`, `next_cursor`."""

    results: list[RelatedRow]
    message: NotRequired[str]  # why nothing is related (an unknown path)
    total: NotRequired[int]  # every row of the list, on this page or not
    truncated: NotRequired[bool]  # more rows follow these: next_cursor lists them
    next_cursor: NotRequired[str | None]


class ErrorResult(TypedDict):
    """kenso's contract error payload, e.g. `{"error": "Empty query."}`; for a path that
    names no document, what it may have meant (`hint`, `did_you_mean`)."""

    error: str
    hint: NotRequired[str]
    did_you_mean: NotRequired[list[str]]


class SnippetResult(TypedDict):
    """`read_snippet`: whole lines (1-based) around the first match."""

    path: str
    line_start: int
    line_end: int
    text: str
    truncated: bool
    token_budget: int


class AuthoredCommit(TypedDict):
    """A commit as history answers name it."""

    id: str
    time: int  # committer time, Unix seconds
    author: str
    subject: str


class DriftedFileResult(TypedDict):
    """One agent instruction file the upstream branch has in another version."""

    path: str
    status: str  # modified, added (only upstream has it) or deleted
    insertions: int | None
    deletions: int | None
    last_commit: AuthoredCommit | None  # the upstream commit that last changed it


class DriftResult(TypedDict):
    """`health_check.drift` and `kenso-git drift --json` (#29)."""

    drifted: bool
    upstream: str | None
    upstream_commit: str | None
    behind: int
    files: list[DriftedFileResult]
    reason: str | None


class ChangedDoc(TypedDict):
    """One doc that changed between two revisions (`changed_docs`, #29)."""

    path: str
    status: str  # added, modified, deleted or renamed
    old_path: NotRequired[str]
    commits: int
    last_commit: AuthoredCommit | None  # None: only the work tree changed it
    uncommitted: NotRequired[bool]


class ChangedDocs(TypedDict):
    """`changed_docs`: the docs the scope shows that changed from `since` to `until`."""

    since: str
    until: str | None  # None: the work tree
    results: list[ChangedDoc]
    total: int  # every change of the range, listed here or not
    truncated: bool  # more changes follow these results: next_cursor lists them
    next_cursor: str | None


class QueryWatchResult(TypedDict):
    """`query_watch` of `health_check` and `index_state`: whether the query-time check is
    skipped while an inotify watch vouches that nothing changed (`index/quiet.py`)."""

    state: str  # armed, arming, off or aside (stands aside for good in this process)
    reason: str | None  # why it is not armed (names no path); None when armed
    folders: int  # folders watched (0 unless armed)


class HealthResult(TypedDict):
    """`health_check`: whether the index is usable, and why not."""

    ok: bool
    reason: str | None
    index: str  # ok, empty, missing, error or unchecked (out of budget)
    documents: int
    chunks: int
    schema_version: int | None
    as_of: str | None
    stale: bool | None
    stale_reason: str | None  # why `stale` is true; None when fresh or not checked
    worktree_differs: bool | None  # the indexed docs differ from HEAD's (uncommitted edits)
    version: str
    read_only: bool
    watcher_ok: bool | None  # the file-system watcher syncs as it should; None: not running
    watcher_reason: str | None  # why not, or how it watches (events or polling)
    query_watch: QueryWatchResult | None  # None when the scope hides part of the tree
    drift: NotRequired[DriftResult]  # agent instruction files newer upstream (#29)


class StateResult(TypedDict):
    """`index_state`: counts, size and freshness as the MCP tool reports them."""

    documents: int
    chunks: int
    links: int
    db_bytes: int
    schema_version: int | None
    as_of: str | None
    synced_at: float | None
    stale: bool | None
    stale_reason: str | None  # why `stale` is true; None when fresh or not checked
    worktree_differs: bool | None  # the indexed docs differ from HEAD's (uncommitted edits)
    root: str
    scoped_roots: list[str]
    query_watch: QueryWatchResult | None  # None when the scope hides part of the tree


class ReindexResult(TypedDict):
    """`reindex`: whether the sync changed the index, and the new counts."""

    changed: bool
    documents: int
    chunks: int


class CategoryCount(TypedDict):
    """Documents and chunks of one category."""

    category: str | None
    documents: int
    chunks: int


class CachedRevisionDict(TypedDict):
    """One revision the revision cache holds (#29)."""

    commit: str
    ref: str  # the name it was first asked by
    differing: int  # docs whose text or presence differs from the checkout's index
    bytes: int  # compressed texts of its docs
    used_at: float  # Unix time it was last searched


class RevisionCacheDict(TypedDict):
    """What `revisions.db` beside the index holds, and its bounds."""

    path: str
    count: int
    bytes: int
    file_bytes: int
    max_count: int
    max_bytes: int
    revisions: list[CachedRevisionDict]


class IndexStateDict(TypedDict):
    """`IndexState.to_dict()`, what `kenso-git stats --json` prints."""

    root: str
    db_path: str
    documents: int
    chunks: int
    links: int
    db_bytes: int
    content_bytes: int
    schema_version: int
    as_of: str | None
    synced_at: float | None
    stale: bool | None
    stale_reason: str | None
    worktree_differs: bool | None
    scope: list[str]
    categories: list[CategoryCount]
    revision_cache: RevisionCacheDict


class RelatedFile(TypedDict):
    """One document of `find_related` and why it is related, strongest reason first."""

    path: str
    why: list[str]  # links_to, linked_from, relates_to, related_from, same_stem, same_folder
    relation_types: list[str]  # the relates_to relation types of the links, if any
    title: str | None


class RelatedPage(TypedDict):
    """`find_related`: a page of the documents related to `path`."""

    path: str
    results: list[RelatedFile]
    total: int
    returned: int
    page_size: int
    next_cursor: str | None
    has_more: bool
    token_budget: int


class AgentHit(TypedDict):
    """One hit of `search` or `regex_search`."""

    path: str
    score: float
    snippet: str
    snippet_truncated: bool
    match_type: str  # Content, FileName, Both, Filter, Regex
    size: int
    modified: int  # Unix seconds
    title: str | None
    section: str | None
    line: NotRequired[int]  # regex_search: the 1-based line of the match
    tier: NotRequired[str]  # search, ranked: AND, NEAR or OR (the cascade stage), path, filename
    last_commit: NotRequired[CommitInfo]  # the commit that last changed the doc (#29)
    uncommitted: NotRequired[bool]


class AgentPage(TypedDict):
    """A page of hits and how to get the next one."""

    results: list[AgentHit]
    total: int
    total_is_lower_bound: bool
    mode: str
    returned: int
    page_size: int
    next_cursor: str | None
    has_more: bool
    token_budget: int
    as_of: int | None  # Unix seconds of the index's last sync
    cursor_limit_reached: NotRequired[bool]
    corrected_query: NotRequired[str]  # search, ranked: the typo correction the ranking used
    read_as_words: NotRequired[list[str]]  # search: syntax-like tokens read as words
    stale: NotRequired[bool]  # the query-time sync gave up or failed: may miss recent edits
    stale_reason: NotRequired[str]
