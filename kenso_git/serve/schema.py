"""The MCP tools' declared output schemas: what `server.py` announces for each tool.

These models only shape the JSON Schema the SDK derives from each tool's return annotation;
the data a tool returns is typed by `kenso_git.search.results`. They stay separate because the
SDK's pydantic needs `typing_extensions.TypedDict` before Python 3.12, and because the declared
schema is a public contract (docs/mcp-tools.md is generated from it): it must not move when a
payload type is refined.
"""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict


class CommitOut(TypedDict):
    id: str
    time: int | None
    subject: str | None


class Hit(TypedDict):
    file_path: str
    title: str | None
    category: str | None
    content_preview: str
    match_source: NotRequired[str]
    score: float
    cascade_stage: NotRequired[str | None]
    relevance: NotRequired[str]
    tags: NotRequired[list[str]]
    related_count: NotRequired[int]
    highlight: NotRequired[str]
    last_commit: NotRequired[CommitOut]
    uncommitted: NotRequired[bool]


class SearchOut(TypedDict):
    """search_docs / search_multi: the hits, and the correction when the query was fixed."""

    results: list[Hit]
    corrected_query: NotRequired[str]
    read_as_words: NotRequired[list[str]]
    original_query: NotRequired[str]
    truncated: NotRequired[bool]
    stale: NotRequired[bool]
    stale_reason: NotRequired[str]


class DocOut(TypedDict):
    title: str | None
    content: str
    category: str | None
    audience: str | None
    tags: list[str] | None
    truncated: NotRequired[bool]
    last_commit: NotRequired[CommitOut]
    uncommitted: NotRequired[bool]


class Related(TypedDict):
    related_path: str
    relation_type: str
    direction: str
    depth: int


class RelatedOut(TypedDict):
    results: list[Related]
    message: NotRequired[str]
    truncated: NotRequired[bool]


class SnippetOut(TypedDict):
    path: str
    line_start: int
    line_end: int
    text: str
    truncated: bool
    token_budget: int


class AuthoredCommitOut(TypedDict):
    id: str
    time: int
    author: str
    subject: str


class DriftedFileOut(TypedDict):
    path: str
    status: str
    insertions: int | None
    deletions: int | None
    last_commit: AuthoredCommitOut | None


class DriftOut(TypedDict):
    drifted: bool
    upstream: str | None
    upstream_commit: str | None
    behind: int
    files: list[DriftedFileOut]
    reason: str | None


class ChangedDocOut(TypedDict):
    path: str
    status: str
    old_path: NotRequired[str]
    commits: int
    last_commit: AuthoredCommitOut | None
    uncommitted: NotRequired[bool]


class ChangedDocsOut(TypedDict):
    """changed_docs: the docs that changed between two revisions (or one and the work tree)."""

    since: str
    until: str | None
    results: list[ChangedDocOut]
    total: int
    truncated: bool


class HealthOut(TypedDict):
    ok: bool
    reason: str | None
    index: str
    documents: int
    chunks: int
    schema_version: int | None
    as_of: str | None
    stale: bool | None
    stale_reason: str | None
    worktree_differs: bool | None
    version: str
    read_only: bool
    watcher_ok: bool | None
    watcher_reason: str | None
    drift: NotRequired[DriftOut]


class StateOut(TypedDict):
    documents: int
    chunks: int
    links: int
    db_bytes: int
    schema_version: int | None
    as_of: str | None
    synced_at: float | None
    stale: bool | None
    stale_reason: str | None
    worktree_differs: bool | None
    root: str
    scoped_roots: list[str]


class ReindexOut(TypedDict):
    changed: bool
    documents: int
    chunks: int


class AgentHitOut(TypedDict):
    path: str
    score: float
    snippet: str
    snippet_truncated: bool
    match_type: str
    size: int
    modified: int
    title: str | None
    section: str | None
    line: NotRequired[int]
    tier: NotRequired[str]
    last_commit: NotRequired[CommitOut]
    uncommitted: NotRequired[bool]


class AgentPageOut(TypedDict):
    """search / regex_search: one page of hits and the cursor to the next."""

    results: list[AgentHitOut]
    total: int
    total_is_lower_bound: bool
    mode: str
    returned: int
    page_size: int
    next_cursor: str | None
    has_more: bool
    token_budget: int
    as_of: int | None
    cursor_limit_reached: NotRequired[bool]
    corrected_query: NotRequired[str]
    read_as_words: NotRequired[list[str]]
    stale: NotRequired[bool]
    stale_reason: NotRequired[str]


class RelatedFileOut(TypedDict):
    path: str
    why: list[str]
    relation_types: list[str]
    title: str | None


class RelatedPageOut(TypedDict):
    """find_related: one page of related documents and the cursor to the next."""

    path: str
    results: list[RelatedFileOut]
    total: int
    returned: int
    page_size: int
    next_cursor: str | None
    has_more: bool
    token_budget: int
