"""The MCP tools, each declared once: its function, output type, title, flags and examples.

A tool is a function `(service, arguments...) -> (text payload, structured content)` whose
docstring is what the agent reads and whose parameters are the tool's input schema; its
output type (a TypedDict of `kenso_git.search.results`) is the output schema. The MCP server
(`server.py`), `GET /search` (`routes.py`), `docs/mcp-tools.md` (`docs.py`) and the tool lists
of the README and getting-started page are all made from `TOOLS`. Every call goes through
`Service`, the one scope-and-caps gate.

Adding a tool touches three package files: its answer's type in `search/results.py`, the
gated method in `serve/service.py`, and its declaration here (CONTRIBUTING.md has the recipe).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import Literal

from kenso_git.records import NamedTuple
from kenso_git.serve.mcp.arguments import in_range
from kenso_git.serve.service import Service

INSTRUCTIONS = (
    "Search this repository's Markdown documentation. Start with search_docs (or search_multi "
    "for several phrasings), then read_snippet or get_doc for the text, and get_related to "
    "follow links between documents. Paths are repo-relative, as returned by search results."
)

Answer = tuple[object, Mapping[str, Any]]  # (kenso's JSON text payload, structured content)

# The (least, most) of the integer arguments: the library's own (a test holds them equal).
# A value below the least is refused by the tool, naming the range (`in_range`, on every
# door); a larger one is read as the most, as each description says.
PAGE_SIZES = (1, 50)  # search.pagination's MIN_PAGE and MAX_PAGE
DEPTHS = (1, 3)  # search.graph.related's MIN_DEPTH and MAX_DEPTH
SNIPPET_TOKENS = (32, 1024)  # search.snippet's MIN_TOKENS and MAX_TOKENS
DOC_CHARS = (1, 40_000)  # serve.caps.GET_DOC_MAX_CHARS
CHANGES = (1, 1000)  # serve.history.MAX_CHANGES
LIMITS = (1, None)  # search_docs's: the most is the `search-limit-max` setting


class Example(NamedTuple):
    """A call the docs show, run for real against the example docs."""

    arguments: dict[str, Any]
    note: str = ""  # what the example shows, when not the plain use


class Tool(NamedTuple):
    """One MCP tool."""

    run: Callable[..., Answer]  # (service, arguments...): its docstring is the description
    output: str  # the structured content's TypedDict in search/results.py: the output schema
    title: str
    summary: str  # one line for the README and getting-started lists (serve.toollists)
    examples: tuple[Example, ...] = ()
    writes: bool = False  # only `reindex`: listed when allowed, never over HTTP

    @property
    def name(self) -> str:
        return self.run.__name__

    def output_type(self) -> type:
        """The output TypedDict itself (imported only by the SDK server and the docs: the
        SDK-free stdio loop answers from the cached schemas, #32)."""
        from kenso_git.api import results

        found: type = getattr(results, self.output)
        return found


def search_docs(
    service: Service,
    query: str,
    category: str | None = None,
    limit: int = 5,
    ref: str | None = None,
) -> Answer:
    """Keyword search (BM25 over SQLite FTS5) of this repository's Markdown docs.

    Returns a JSON array of the best-matching documents, one entry per document:
    file_path, title (the matching section), category, content_preview (~200 chars),
    match_source, score, cascade_stage (AND, NEAR or OR), relevance (high, medium,
    low), and optionally tags, related_count and highlight. If a typo was corrected
    the result is {"corrected_query", "original_query", "results"}. No hits: [].

    limit: 1 to the configured maximum (default 20; more is read as it), default 5.
    category: an exact category name to narrow results ("all" or empty = no filter).
    Short, specific queries work best; for broad questions use search_multi with 2-5
    phrasings.
    Follow up with read_snippet (a bounded excerpt) or get_doc (the whole text).
    ref: a commit, branch or tag (e.g. "v1.2", "HEAD~3"): search the docs as they are in
    that revision, paths as at it (hits then carry no last_commit).
    """
    in_range("search_docs", "limit", limit, *LIMITS)
    return service.search_docs(query, category, limit, ref)


def search_multi(
    service: Service, queries: list[str] | None, category: str | None = None, limit: int = 5
) -> Answer:
    """Run 2-5 phrasings of one question and merge them (Reciprocal Rank Fusion).

    Returns the same JSON array shape as search_docs, ranked by the fused score.
    At most 5 queries are run: with more, the first 5 answer and the structured
    result says truncated: true. Use it when one wording may miss: synonyms, an
    acronym and its expansion, a question and its keywords. limit and category as in
    search_docs.
    """
    in_range("search_multi", "limit", limit, *LIMITS)
    return service.search_multi(queries, category, limit)


def get_doc(
    service: Service, path: str, max_length: int | None = None, ref: str | None = None
) -> Answer:
    """Return one document's full indexed text by its repo-relative path.

    Returns {title, content, category, audience, tags} plus truncated: true when the
    content was cut, and last_commit (or uncommitted: true) of the indexed text.
    max_length (characters, at least 1) cuts the content; very long documents are
    always cut at ~40,000 characters (a larger max_length is read so). When edits
    made since the last sync could not be indexed first, the structured result says
    stale: true with stale_reason; a page edited since is then read as the work tree
    holds it, and carries no last_commit (that commit is not of the text shown).
    For a targeted excerpt of a large document, prefer read_snippet. Paths outside
    the agent scope, ignored files and `..` are refused with the name of the rule.
    ref: a commit, branch or tag (e.g. "v1.2", "HEAD~3"): read the document as it is in
    that revision, path as at it.
    """
    in_range("get_doc", "max_length", max_length, *DOC_CHARS)
    return service.get_doc(path, max_length, ref)


def get_related(
    service: Service,
    path: str,
    depth: int = 1,
    relation_type: str | None = None,
    cursor: str | None = None,
) -> Answer:
    """List documents linked to a document through relates_to and Markdown links.

    Returns a JSON array of {related_path, relation_type, direction (incoming or
    outgoing), depth, via (at depth 2-3)}, nearest first. depth is 1-3 hops (default 1;
    more is read as 3);
    relation_type narrows to one link type such as feeds_into, part_of or related.
    Unknown path: []. An answer holds at most ~48,000 characters: when the list is
    longer, the answer is instead {results, total, truncated: true, next_cursor}, and
    passing next_cursor back as cursor, with the same path, depth and relation_type,
    lists the next rows (in that shape) until next_cursor is null.
    """
    in_range("get_related", "depth", depth, *DEPTHS)
    return service.get_related(path, depth, relation_type, cursor)


def read_snippet(
    service: Service, path: str, query: str, max_tokens: int = 256, ref: str | None = None
) -> Answer:
    """Read the lines of one Markdown file around the first line matching query.

    Returns {path, line_start, line_end, text, truncated, token_budget}: whole lines
    centred on the first match, at most max_tokens x 4 characters (max_tokens 32-1024,
    default 256; more is read as 1024); truncated is true when the file has more text
    outside the window. Lines are 1-based. An empty query returns the start of the
    file. Never returns a whole large file: call again with another query to move
    through it.
    ref: a commit, branch or tag (e.g. "v1.2", "HEAD~3"): read the file as it is in that
    revision, path as at it (never the work tree's copy).
    """
    in_range("read_snippet", "max_tokens", max_tokens, *SNIPPET_TOKENS)
    return service.read_snippet(path, query, max_tokens, ref)


def health_check(service: Service) -> Answer:
    """Report whether the search index is usable: {ok, reason, index, documents,
    chunks, schema_version, as_of, stale, stale_reason, worktree_differs, version,
    read_only, watcher_ok, watcher_reason}. Changed docs are synced first, so stale is
    true only when that could not be done. read_only is true when no tool this server
    offers writes (reindex is offered only with allow-reindex = true, never over HTTP).
    watcher_ok is true while the server's file watcher keeps the index in step with
    saves; false while it starts (watcher_reason "the watcher is starting"; reads still
    sync changed docs first) or when it cannot, with the reason; null only when it is off
    (serve --no-watch or watch = false). query_watch: {state, reason, folders}, whether
    the query-time check is skipped while an inotify watch saw nothing change: state
    "armed" (reason null), "arming" (from the second check, or again after a change of
    folders or rules), "off" (query-watch = false) or "aside" (not Linux, a non-local file
    system, too many folders, a hard-linked doc; every read then checks as before); null
    under agent-scoped-roots that hide part of the tree (the watch covers all of it).
    drift (in a git checkout): {drifted, upstream,
    upstream_commit, behind, files: [{path, status, insertions, deletions, last_commit}],
    reason}, whether the upstream branch as last fetched has newer agent instructions
    (AGENTS.md, CLAUDE.md, GEMINI.md, .github/copilot-instructions.md, .cursor/rules/). An unusable
    or missing index gives ok: false with a reason and the command that fixes it; so does one
    it could not read within call-budget (index "unchecked": counts and staleness unknown)."""
    return service.health()


def index_state(service: Service) -> Answer:
    """Describe the index: document, chunk and link counts, database size in bytes,
    schema version, as_of (the HEAD commit it reflects), synced_at, stale (true when
    the working tree changed and could not be synced first) with stale_reason,
    worktree_differs (the docs differ from HEAD's), the repository root, the scoped
    roots, and query_watch {state, reason, folders} (as in health_check)."""
    return service.state()


def search(
    service: Service,
    query: str,
    page_size: int | None = None,
    cursor: str | None = None,
    mode: Literal["ranked", "exhaustive"] = "ranked",
    path: str | None = None,
    ext: str | None = None,
    modified_after: str | None = None,
    limit: int | None = None,
    ref: str | None = None,
) -> Answer:
    """Search the docs with a query language, page by page.

    query: words or a question, "quoted phrases" (must appear), -negation (a flag to
    find, -Recurse or -la, goes in quotes: "-Recurse"; bare, it excludes), and
    filters: in:"docs/api" (or path:), ext:md, tag:auth, category:guides, modified:7d
    (or a date, 2026-01-31), size:>10k, re:"RE2 pattern"; at most 2,000 characters.
    Filters alone list documents, newest first. path (a folder, up to 4,096
    characters), ext and modified_after (up to 32 each) add one in:, ext: and
    modified: filter each, outside the query's characters; a value that is not one
    such filter is an error naming the argument. mode "ranked" (default) ranks the
    words as search_docs does (all words, then near, then any; typo correction) and
    keeps what the filters pass, up to 10,000 hits; "exhaustive" lists by path every
    document holding all the words, without a cap.
    Returns {results: [{path, score, snippet (<= 100 chars), snippet_truncated,
    match_type (Content, FileName, Both, Filter), tier (AND, NEAR, OR, path,
    filename), size, modified (Unix s), title, section}], total,
    total_is_lower_bound, mode, returned, page_size, next_cursor, has_more,
    token_budget, as_of, corrected_query?}. page_size 1-50 (default 10; more is read
    as 50; limit is an alias). Pass next_cursor back as cursor until has_more is
    false. A ranked cursor is refused once the index changed or with another ref
    (start again); an exhaustive one resumes after its path. A malformed query is an
    error naming the token. ref: a commit, branch or tag (e.g. "v1.2", "HEAD~3"):
    search the docs as they are in that revision.
    """
    in_range("search", "page_size", page_size, *PAGE_SIZES)
    in_range("search", "limit", limit, *PAGE_SIZES)
    return service.search(
        query,
        page_size=page_size if page_size is not None else limit,
        cursor=cursor,
        mode=mode,
        path=path,
        ext=ext,
        modified_after=modified_after,
        ref=ref,
    )


def regex_search(
    service: Service,
    pattern: str,
    page_size: int = 10,
    cursor: str | None = None,
    path: str | None = None,
    ext: str | None = None,
) -> Answer:
    """Grep the docs' text with an RE2 regular expression (linear time, no backtracking).

    pattern: at most 512 bytes, compiled before any file is read; ^ and $ match at
    line breaks; no backreferences or lookaround. Each matching line is one hit, in
    path then line order: the same shape as search, with match_type "Regex" and line
    (1-based). path narrows to a folder, ext to an extension. page_size 1-50 (default
    10; more is read as 50). total is a lower bound while has_more is true; pass
    next_cursor back as cursor for the next page. A cursor is refused once its
    document changed at or above its line (start again).
    """
    in_range("regex_search", "page_size", page_size, *PAGE_SIZES)
    return service.regex_search(pattern, page_size=page_size, cursor=cursor, path=path, ext=ext)


def find_related(
    service: Service, path: str, page_size: int | None = None, cursor: str | None = None
) -> Answer:
    """List the documents related to one document, each with why, page by page.

    Returns {path, results: [{path, why, relation_types, title}], total, returned,
    page_size, next_cursor, has_more, token_budget}. why lists every reason, strongest
    first: links_to / linked_from (an inline Markdown link from it or to it),
    relates_to / related_from (frontmatter relates_to, relation_types naming the
    relations), same_stem (the same file name in another folder), same_folder.
    Links come first, then same stem, then same folder. page_size 1-50 (default 10;
    more is read as 50);
    pass next_cursor back as cursor until has_more is false. Paths outside the agent
    scope are refused like get_doc; an unknown path is an error.
    """
    in_range("find_related", "page_size", page_size, *PAGE_SIZES)
    return service.find_related(path, page_size, cursor)


def changed_docs(
    service: Service,
    since: str,
    until: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Answer:
    """List the docs that changed between two git revisions, rename-aware, page by page.

    since and until: anything `git rev-parse` takes (a branch, tag, commit id, HEAD~3,
    origin/main); without until, since is compared with the working tree (uncommitted
    edits included). Returns {since, until, results: [{path, status (added, modified,
    deleted, renamed), old_path?, commits, last_commit: {id, time, author, subject} or
    null, uncommitted?}], total, truncated, next_cursor}, results in path order; commits
    counts the range's commits that changed the doc under any of its names. total counts
    every change of the range. An answer lists at most limit results (1-1000, default
    1000; more is read as 1000), and fewer when more would pass ~48,000
    characters (some 150 docs): truncated is then true, and passing next_cursor back as
    cursor, with the same since and until, lists the next ones, until next_cursor is null.
    Only docs the agent scope shows are listed, at every revision. Never fetches.
    """
    in_range("changed_docs", "limit", limit, *CHANGES)
    return service.changed_docs(since, until, limit, cursor)


def reindex(service: Service) -> Answer:
    """Bring the index up to date with the working tree (like `kenso-git sync`).

    The only tool that writes; enabled by `allow-reindex = true` in [tool.kenso].
    Returns {changed, documents, chunks}. Needs an existing index.
    """
    return service.reindex()


TOOLS: tuple[Tool, ...] = (
    Tool(
        search_docs,
        "SearchAnswer",
        "Search the docs",
        "ranked sections for a query (kenso's array)",
        (
            Example({"query": "canary rollback", "limit": 3}),
            Example({"query": "   "}, "an empty query"),
        ),
    ),
    Tool(
        search_multi,
        "SearchAnswer",
        "Search with several phrasings",
        "2-5 phrasings of one question, fused by rank",
        (Example({"queries": ["retry failed payments", "card charge backoff"]}),),
    ),
    Tool(
        get_doc,
        "DocResult",
        "Read a whole document",
        "a document's whole indexed text, and its last commit",
        (
            Example({"path": "docs/billing.md"}),
            Example({"path": "../secrets.md"}, "a refused path"),
        ),
    ),
    Tool(
        get_related,
        "RelatedList",
        "Follow document links",
        "the documents its `relates_to` links reach",
        (Example({"path": "docs/deploy.md", "depth": 2}),),
    ),
    Tool(
        read_snippet,
        "SnippetResult",
        "Read lines around a match",
        "the lines around a match in one file",
        (Example({"path": "docs/rollback.md", "query": "seven days", "max_tokens": 48}),),
    ),
    Tool(
        health_check,
        "HealthResult",
        "Index health",
        "whether the index is usable and fresh, and agent instruction drift",
        (Example({}),),
    ),
    Tool(
        index_state,
        "StateResult",
        "Index state",
        "counts, size, freshness and the scope",
        (Example({}),),
    ),
    Tool(
        search,
        "AgentPage",
        "Search with filters and pages",
        "the query language (`in:`, `tag:`, `modified:`...) ranked like `search_docs`, by pages",
        (
            Example({"query": "release tag:release -canary", "page_size": 2}),
            Example({"query": "ext:md", "mode": "exhaustive", "page_size": 2}, "exhaustive"),
            Example({"query": "deploy modified:someday"}, "a bad token"),
        ),
    ),
    Tool(
        regex_search,
        "AgentPage",
        "Grep the docs",
        "a regular expression over the docs, with line numbers",
        (Example({"pattern": "retr(y|ied) \\w+", "page_size": 2}),),
    ),
    Tool(
        find_related,
        "RelatedPage",
        "Find related documents",
        "documents near one: links, the same stem, the same folder, each with why",
        (Example({"path": "docs/deploy.md", "page_size": 5}),),
    ),
    Tool(
        changed_docs,
        "ChangedDocs",
        "What changed since a revision",
        "the docs added, modified, deleted or renamed since a revision",
        (Example({"since": "HEAD"}, "outside a git repository"),),
    ),
    Tool(
        reindex,
        "ReindexResult",
        "Update the index",
        "syncs the index (opt-in: `allow-reindex = true`; the only tool that writes)",
        writes=True,
    ),
)


def by_name(name: str) -> Tool:
    """The tool called `name`.

    Raises:
        KeyError: no such tool.
    """
    for tool in TOOLS:
        if tool.name == name:
            return tool
    raise KeyError(name)
