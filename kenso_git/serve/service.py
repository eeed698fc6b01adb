"""What the MCP tools do, without the SDK: scope checks, KnowledgeBase calls, result caps.

Each method returns `(text_payload, structured)`: the JSON kenso's tool returns (an array
or an object) and the same data as an object for MCP structured content. Expected problems
raise `KensoError` subclasses; `mcp_server` turns them into tool errors.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import NotRequired

from typing_extensions import TypedDict

from kenso_git import __version__
from kenso_git.config import Settings
from kenso_git.config import load_settings
from kenso_git.errors import KensoError
from kenso_git.errors import NoIndexError
from kenso_git.errors import ScopeError
from kenso_git.repo.scope import Scope
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import find_workspace
from kenso_git.search.snippet import make_snippet

if TYPE_CHECKING:
    from kenso_git.kb import KnowledgeBase

MAX_RESULT_CHARS = 48_000  # ~12k tokens: well under the ~25k tokens clients accept
GET_DOC_MAX_CHARS = 40_000
SNIPPET_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})

Payload = tuple[object, dict[str, Any]]


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


class SearchOut(TypedDict):
    """search_docs / search_multi: the hits, and the correction when the query was fixed."""

    results: list[Hit]
    corrected_query: NotRequired[str]
    original_query: NotRequired[str]
    truncated: NotRequired[bool]


class DocOut(TypedDict):
    title: str | None
    content: str
    category: str | None
    audience: str | None
    tags: list[str] | None
    truncated: NotRequired[bool]


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


class HealthOut(TypedDict):
    ok: bool
    reason: str | None
    index: str
    documents: int
    chunks: int
    schema_version: int | None
    as_of: str | None
    stale: bool | None
    version: str
    read_only: bool


class StateOut(TypedDict):
    documents: int
    chunks: int
    links: int
    db_bytes: int
    schema_version: int | None
    as_of: str | None
    synced_at: float | None
    stale: bool | None
    root: str
    scoped_roots: list[str]


class ReindexOut(TypedDict):
    changed: bool
    documents: int
    chunks: int


def _fits(payload: object) -> bool:
    return len(json.dumps(payload, indent=2, ensure_ascii=False)) <= MAX_RESULT_CHARS


def _fit_list(items: list[Any]) -> tuple[list[Any], bool]:
    """Drop trailing items until the JSON fits the result cap."""
    if _fits(items):
        return items, False
    kept = list(items)
    while kept and not _fits(kept):
        kept.pop()
    return kept, True


def _capped_results(raw: list[Any]) -> Payload:
    """A result list cut to the size budget: as text, and as `{"results": ...}` structured."""
    items, cut = _fit_list(raw)
    out: dict[str, Any] = {"results": items}
    if cut:
        out["truncated"] = True
    return items, out


def _search_payload(raw: object) -> Payload:
    if isinstance(raw, list):
        return _capped_results(raw)
    if isinstance(raw, dict) and isinstance(raw.get("results"), list):
        hits, cut = _fit_list(raw["results"])
        text = {**raw, "results": hits}
        return text, ({**text, "truncated": True} if cut else text)
    return raw, dict(raw) if isinstance(raw, dict) else {"results": []}


class Service:
    """Lazily opened knowledge base plus the scope gate, shared by all tool calls."""

    def __init__(self, start: Path | None = None, *, db: str | None = None) -> None:
        self.workspace: Workspace = find_workspace(start)
        self.settings: Settings = load_settings(self.workspace.root)
        self.scope: Scope = scope_for(self.workspace, self.settings)
        self._db = db
        self._kb: KnowledgeBase | None = None
        self._lock = threading.Lock()

    def kb(self) -> KnowledgeBase:
        """The knowledge base, opened on first use (never creates an index).

        Raises:
            NoIndexError: there is no index yet.
        """
        with self._lock:
            if self._kb is None:
                from kenso_git.kb import KnowledgeBase

                self._kb = KnowledgeBase.of_workspace(self.workspace, db=self._db)
            return self._kb

    def require_index(self) -> KnowledgeBase:
        """The knowledge base, or NoIndexError when no index exists.

        Raises:
            NoIndexError: there is no index yet.
        """
        kb = self.kb()
        if not kb.has_index():
            raise NoIndexError(
                f"no search index yet ({kb.db_path} is missing)",
                hint="run `kenso-git ingest` in the repository; serving never creates an index",
            )
        return kb

    def _limit(self, limit: int) -> int:
        return max(1, min(int(limit), self.settings.search_limit_max))

    def search_docs(self, query: str, category: str | None, limit: int) -> Payload:
        raw = self.kb().search_docs(
            query, category=category, limit=self._limit(limit), path_filter=self.scope.allows
        )
        return _search_payload(raw)

    def search_multi(self, queries: list[str] | None, category: str | None, limit: int) -> Payload:
        raw = self.kb().search_multi(
            queries, category=category, limit=self._limit(limit), path_filter=self.scope.allows
        )
        return _search_payload(raw)

    def get_doc(self, path: str, max_length: int | None) -> Payload:
        rel = self.scope.resolve(path)
        kb = self.kb()
        cap = (
            GET_DOC_MAX_CHARS
            if not max_length or max_length < 0
            else min(max_length, GET_DOC_MAX_CHARS)
        )
        doc = kb.get_doc(rel, max_length=cap)
        while not _fits(doc) and cap > 1000:
            cap //= 2  # escaping (quotes, non-ASCII) can inflate the JSON beyond the raw length
            doc = kb.get_doc(rel, max_length=cap)
        return doc, dict(doc)

    def get_related(self, path: str, depth: int, relation_type: str | None) -> Payload:
        rel = self.scope.resolve(path)
        depth = max(1, min(int(depth), 3))
        raw = self.kb().get_related(
            rel, depth=depth, relation_type=relation_type, path_filter=self.scope.allows
        )
        if isinstance(raw, list):
            return _capped_results(raw)
        return raw, dict(raw)

    def read_snippet(self, path: str, query: str, max_tokens: int) -> Payload:
        rel = self.scope.resolve(path)
        self.require_index()  # no index, no tools: the same clear error everywhere
        target = self.scope.root / rel
        if target.suffix.lower() not in SNIPPET_SUFFIXES:
            raise ScopeError(
                f"path refused (not-markdown): {rel!r}: read_snippet reads Markdown files only",
                rule="not-markdown",
                path=rel,
            )
        data = _read_limited(target, rel, self.settings.max_file_size)
        text = data.decode("utf-8", errors="replace")
        snip = make_snippet(text, query, max_tokens)
        if snip is None:
            raise KensoError(
                f"no line of {rel} matches {query!r}",
                hint="try a shorter query or one distinctive word; an empty query reads the start",
                path=rel,
            )
        out = {
            "path": rel,
            "line_start": snip.line_start,
            "line_end": snip.line_end,
            "text": snip.text,
            "truncated": snip.truncated,
            "token_budget": snip.token_budget,
        }
        return out, out

    def health(self) -> Payload:
        out: dict[str, Any] = {
            "ok": False,
            "reason": None,
            "index": "missing",
            "documents": 0,
            "chunks": 0,
            "schema_version": None,
            "as_of": None,
            "stale": None,
            "version": __version__,
            "read_only": not self.settings.allow_reindex,
        }
        try:
            st = self.kb().state()
        except NoIndexError as err:
            out["reason"] = f"{err.message}; {err.hint}" if err.hint else err.message
            return out, out
        except KensoError as err:
            out["index"] = "error"
            out["reason"] = f"{err.message}; {err.hint}" if err.hint else err.message
            return out, out
        out.update(
            ok=st.documents > 0,
            reason=None if st.documents > 0 else "the index is empty; run `kenso-git ingest`",
            index="ok" if st.documents > 0 else "empty",
            documents=st.documents,
            chunks=st.chunks,
            schema_version=st.schema_version,
            as_of=st.as_of,
            stale=st.stale,
        )
        return out, out

    def state(self) -> Payload:
        st = self.kb().state()
        out: dict[str, Any] = {
            "documents": st.documents,
            "chunks": st.chunks,
            "links": st.links,
            "db_bytes": st.db_bytes,
            "schema_version": st.schema_version,
            "as_of": st.as_of,
            "synced_at": st.synced_at,
            "stale": st.stale,
            "root": str(st.root),
            "scoped_roots": list(self.scope.rel_roots),
        }
        return out, out

    def reindex(self) -> Payload:
        kb = self.require_index()
        report = kb.sync()
        st = kb.state()
        out = {"changed": report.changed, "documents": st.documents, "chunks": st.chunks}
        return out, out


def _read_limited(target: Path, rel: str, limit: int) -> bytes:
    try:
        with target.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise KensoError(
            f"no file at {rel}", hint="use a file_path from search_docs", path=rel
        ) from None
    except IsADirectoryError:
        raise KensoError(f"{rel} is a folder", hint="pass a Markdown file", path=rel) from None
    except OSError as err:
        raise KensoError(f"cannot read {rel}: {err.strerror}", path=rel) from None
    if len(data) > limit:
        raise ScopeError(
            f"path refused (too-large): {rel!r} is larger than max-file-size ({limit} bytes)",
            rule="too-large",
            path=rel,
        )
    if b"\x00" in data[:8192]:
        raise ScopeError(f"path refused (binary): {rel!r} is not text", rule="binary", path=rel)
    return data
