"""The MCP server: kenso's four tools plus read_snippet, health_check, index_state, search,
regex_search and reindex.

One of the two modules that import the MCP SDK (the other is `mcp_http`). Tools are plain
functions over `KnowledgeBase`; the SDK runs them in worker threads, so the event loop
stays free while SQLite reads. Every result is JSON text (kenso's exact shape) plus the
same data as structured content; arrays are wrapped as `{"results": [...]}` there because
MCP structured content must be an object. Error results (`isError`) carry text only: clients
of the TypeScript SDK validate any structured content against the tool's output schema, even
on errors, and would replace kenso's message with a -32602 of their own.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Callable
from collections.abc import Mapping
from typing import Annotated
from typing import Any
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from mcp.types import TextContent
from mcp.types import ToolAnnotations

from kenso_git import __version__
from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.serve.schema import AgentPageOut
from kenso_git.serve.schema import ChangedDocsOut
from kenso_git.serve.schema import DocOut
from kenso_git.serve.schema import HealthOut
from kenso_git.serve.schema import ReindexOut
from kenso_git.serve.schema import RelatedOut
from kenso_git.serve.schema import RelatedPageOut
from kenso_git.serve.schema import SearchOut
from kenso_git.serve.schema import SnippetOut
from kenso_git.serve.schema import StateOut
from kenso_git.serve.service import MAX_RESULT_CHARS
from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITE_LOCAL = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

INSTRUCTIONS = (
    "Search this repository's Markdown documentation. Start with search_docs (or search_multi "
    "for several phrasings), then read_snippet or get_doc for the text, and get_related to "
    "follow links between documents. Paths are repo-relative, as returned by search results."
)


def _dump(payload: object) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False)


def _result(text_payload: object, structured: Mapping[str, object]) -> CallToolResult:
    text = _dump(text_payload)
    if len(text) > MAX_RESULT_CHARS:  # pragma: no cover - Service.fit keeps payloads smaller
        text = text[:MAX_RESULT_CHARS]
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=dict(structured)
    )


def _error(err: KensoError) -> CallToolResult:
    body: dict[str, Any] = {"error": err.message}
    if err.hint:
        body["hint"] = err.hint
    if isinstance(err, ScopeError):
        body["rule"] = err.rule
    return _error_result(body)


def _error_result(body: Mapping[str, object]) -> CallToolResult:
    # No structured content: it would have to match the success schema (see the docstring).
    return CallToolResult(content=[TextContent(type="text", text=_dump(body))], is_error=True)


def _call(work: Callable[[], tuple[object, Mapping[str, object]]]) -> CallToolResult:
    try:
        text_payload, structured = work()
    except KensoError as err:
        log.info("tool refused: %s", err.message)
        return _error(err)
    if isinstance(text_payload, dict) and "error" in text_payload:
        return _error_result(text_payload)
    return _result(text_payload, structured)


def _add(server: MCPServer[Any], fn: Callable[..., CallToolResult], **options: Any) -> None:
    # The SDK sends a docstring as is: clients would show its indentation to the model.
    server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), **options)


def _add_find_related(server: MCPServer[Any], service: Service) -> None:
    def find_related(
        path: str, page_size: int | None = None, cursor: str | None = None
    ) -> Annotated[CallToolResult, RelatedPageOut]:
        """List the documents related to one document, each with why, page by page.

        Returns {path, results: [{path, why, relation_types, title}], total, returned,
        page_size, next_cursor, has_more, token_budget}. why lists every reason, strongest
        first: links_to / linked_from (an inline Markdown link from it or to it),
        relates_to / related_from (frontmatter relates_to, relation_types naming the
        relations), same_stem (the same file name in another folder), same_folder.
        Links come first, then same stem, then same folder. page_size 1-50 (default 10);
        pass next_cursor back as cursor until has_more is false. Paths outside the agent
        scope are refused like get_doc; an unknown path is an error.
        """
        return _call(lambda: service.find_related(path, page_size, cursor))

    _add(server, find_related, annotations=READ_ONLY, title="Find related documents")


def _add_changed_docs(server: MCPServer[Any], service: Service) -> None:
    def changed_docs(
        since: str, until: str | None = None, limit: int | None = None
    ) -> Annotated[CallToolResult, ChangedDocsOut]:
        """List the docs that changed between two git revisions, rename-aware.

        since and until: anything `git rev-parse` takes (a branch, tag, commit id, HEAD~3,
        origin/main); without until, since is compared with the working tree (uncommitted
        edits included). Returns {since, until, results: [{path, status (added, modified,
        deleted, renamed), old_path?, commits, last_commit: {id, time, author, subject} or
        null, uncommitted?}], total, truncated}; commits counts the range's commits that
        changed the doc under any of its names. limit caps results (default and most 1000).
        Only docs the agent scope shows are listed, at every revision. Never fetches.
        """
        return _call(lambda: service.changed_docs(since, until, limit))

    _add(server, changed_docs, annotations=READ_ONLY, title="What changed since a revision")


def build_server(service: Service, *, http: bool = False) -> MCPServer[Any]:
    """The MCP server for `service`; `reindex` exists only when enabled and never over HTTP."""
    server: MCPServer[Any] = MCPServer(
        "kenso-git", instructions=INSTRUCTIONS, version=__version__, log_level=_level(service)
    )

    def search_docs(
        query: str, category: str | None = None, limit: int = 5
    ) -> Annotated[CallToolResult, SearchOut]:
        """Keyword search (BM25 over SQLite FTS5) of this repository's Markdown docs.

        Returns a JSON array of the best-matching documents, one entry per document:
        file_path, title (the matching section), category, content_preview (~200 chars),
        match_source, score, cascade_stage (AND, NEAR or OR), relevance (high, medium,
        low), and optionally tags, related_count and highlight. If a typo was corrected
        the result is {"corrected_query", "original_query", "results"}. No hits: [].

        limit: 1 to the configured maximum (default 20), default 5. category: an exact
        category name to narrow results ("all" or empty = no filter). Short, specific
        queries work best; for broad questions use search_multi with 2-5 phrasings.
        Follow up with read_snippet (a bounded excerpt) or get_doc (the whole text).
        """
        return _call(lambda: service.search_docs(query, category, limit))

    def search_multi(
        queries: list[str] | None, category: str | None = None, limit: int = 5
    ) -> Annotated[CallToolResult, SearchOut]:
        """Run 2-5 phrasings of one question and merge them (Reciprocal Rank Fusion).

        Returns the same JSON array shape as search_docs, ranked by the fused score.
        At most 5 queries are run: with more, the first 5 answer and the structured
        result says truncated: true. Use it when one wording may miss: synonyms, an
        acronym and its expansion, a question and its keywords.
        """
        return _call(lambda: service.search_multi(queries, category, limit))

    def get_doc(path: str, max_length: int | None = None) -> Annotated[CallToolResult, DocOut]:
        """Return one document's full indexed text by its repo-relative path.

        Returns {title, content, category, audience, tags} plus truncated: true when the
        content was cut. max_length (characters) cuts the content; very long documents
        are always cut at ~40,000 characters. For a targeted excerpt of a large
        document, prefer read_snippet. Paths outside the agent scope, ignored files and
        `..` are refused with the name of the rule.
        """
        return _call(lambda: service.get_doc(path, max_length))

    def get_related(
        path: str, depth: int = 1, relation_type: str | None = None
    ) -> Annotated[CallToolResult, RelatedOut]:
        """List documents linked to a document through relates_to and Markdown links.

        Returns a JSON array of {related_path, relation_type, direction (incoming or
        outgoing), depth}. depth is 1-3 hops (default 1); relation_type narrows to one
        link type such as feeds_into, part_of or related. Unknown path: [].
        """
        return _call(lambda: service.get_related(path, depth, relation_type))

    def read_snippet(
        path: str, query: str, max_tokens: int = 256
    ) -> Annotated[CallToolResult, SnippetOut]:
        """Read the lines of one Markdown file around the first line matching query.

        Returns {path, line_start, line_end, text, truncated, token_budget}: whole lines
        centred on the first match, at most max_tokens x 4 characters (max_tokens 32-1024,
        default 256); truncated is true when the file has more text outside the window.
        Lines are 1-based. An empty query returns the start of the file. Never returns a
        whole large file: call again with another query to move through it.
        """
        return _call(lambda: service.read_snippet(path, query, max_tokens))

    def health_check() -> Annotated[CallToolResult, HealthOut]:
        """Report whether the search index is usable: {ok, reason, index, documents,
        chunks, schema_version, as_of, stale, stale_reason, worktree_differs, version,
        read_only, watcher_ok, watcher_reason}. Changed docs are synced first, so stale is
        true only when that could not be done. watcher_ok is true while the server's file
        watcher keeps the index in step with saves, false with a reason when it cannot, and
        null when it is off. drift (in a git checkout): {drifted, upstream, upstream_commit,
        behind, files: [{path, status, insertions, deletions, last_commit}], reason}, whether
        the upstream branch as last fetched has newer agent instructions (AGENTS.md,
        CLAUDE.md, GEMINI.md, .github/copilot-instructions.md, .cursor/rules/). An unusable
        or missing index gives ok: false with a reason and the command that fixes it."""
        return _call(service.health)

    def index_state() -> Annotated[CallToolResult, StateOut]:
        """Describe the index: document, chunk and link counts, database size in bytes,
        schema version, as_of (the HEAD commit it reflects), synced_at, stale (true when
        the working tree changed and could not be synced first) with stale_reason,
        worktree_differs (the docs differ from HEAD's), the repository root and the scoped
        roots."""
        return _call(service.state)

    def search(
        query: str,
        page_size: int | None = None,
        cursor: str | None = None,
        mode: Literal["ranked", "exhaustive"] = "ranked",
        path: str | None = None,
        ext: str | None = None,
        modified_after: str | None = None,
        limit: int | None = None,
    ) -> Annotated[CallToolResult, AgentPageOut]:
        """Search the docs with a query language, page by page.

        query: words or a question, "quoted phrases" (must appear), -negation, and
        filters: in:"docs/api" (or path:), ext:md, tag:auth, category:guides, modified:7d
        (or a date, 2026-01-31), size:>10k, re:"RE2 pattern". Filters alone list
        documents, newest first. path, ext and modified_after add in:, ext: and
        modified: filters. mode "ranked" (default) ranks the words as search_docs does
        (all words, then near, then any; typo correction) and keeps what the filters
        pass, up to 10,000 hits; "exhaustive" lists by path every document holding all
        the words, without a cap.
        Returns {results: [{path, score, snippet (<= 100 chars), snippet_truncated,
        match_type (Content, FileName, Both, Filter), tier (AND, NEAR, OR, path,
        filename), size, modified (Unix s), title, section}], total,
        total_is_lower_bound, mode, returned, page_size, next_cursor, has_more,
        token_budget, as_of, corrected_query?}. page_size 1-50 (default 10; limit is an
        alias). Pass next_cursor back as cursor until has_more is false. A ranked cursor
        is refused once the index changed (start again); an exhaustive one resumes after
        its path. A malformed query is an error naming the token.
        """
        return _call(
            lambda: service.search(
                query,
                page_size=page_size if page_size is not None else limit,
                cursor=cursor,
                mode=mode,
                path=path,
                ext=ext,
                modified_after=modified_after,
            )
        )

    def regex_search(
        pattern: str,
        page_size: int = 10,
        cursor: str | None = None,
        path: str | None = None,
        ext: str | None = None,
    ) -> Annotated[CallToolResult, AgentPageOut]:
        """Grep the docs' text with an RE2 regular expression (linear time, no backtracking).

        pattern: at most 512 bytes, compiled before any file is read; ^ and $ match at
        line breaks; no backreferences or lookaround. Each matching line is one hit, in
        path then line order: the same shape as search, with match_type "Regex" and line
        (1-based). path narrows to a folder, ext to an extension. total is a lower bound
        while has_more is true; pass next_cursor back as cursor for the next page.
        """
        return _call(
            lambda: service.regex_search(
                pattern, page_size=page_size, cursor=cursor, path=path, ext=ext
            )
        )

    _add(server, search_docs, annotations=READ_ONLY, title="Search the docs")
    _add(server, search_multi, annotations=READ_ONLY, title="Search with several phrasings")
    _add(server, get_doc, annotations=READ_ONLY, title="Read a whole document")
    _add(server, get_related, annotations=READ_ONLY, title="Follow document links")
    _add(server, read_snippet, annotations=READ_ONLY, title="Read lines around a match")
    _add(server, health_check, annotations=READ_ONLY, title="Index health")
    _add(server, index_state, annotations=READ_ONLY, title="Index state")
    _add(server, search, annotations=READ_ONLY, title="Search with filters and pages")
    _add(server, regex_search, annotations=READ_ONLY, title="Grep the docs")
    _add_find_related(server, service)
    _add_changed_docs(server, service)

    if service.settings.allow_reindex and not http:

        def reindex() -> Annotated[CallToolResult, ReindexOut]:
            """Bring the index up to date with the working tree (like `kenso-git sync`).

            The only tool that writes; enabled by `allow-reindex = true` in [tool.kenso].
            Returns {changed, documents, chunks}. Needs an existing index.
            """
            return _call(service.reindex)

        _add(server, reindex, annotations=WRITE_LOCAL, title="Update the index")
    return server


def _level(service: Service) -> Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]:
    level = service.settings.log_level.upper()
    if level == "DEBUG":
        return "DEBUG"
    if level == "INFO":
        return "INFO"
    if level == "ERROR":
        return "ERROR"
    if level == "CRITICAL":
        return "CRITICAL"
    return "WARNING"


def run_stdio(service: Service) -> None:
    """Serve MCP over stdin/stdout until the client closes the pipe."""
    build_server(service).run("stdio")
