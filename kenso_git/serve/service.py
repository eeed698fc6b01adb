"""What the MCP tools do, without the SDK: scope checks, KnowledgeBase calls, result caps.

Each method returns `(text_payload, structured)`: the JSON kenso's tool returns (an array
or an object) and the same data as an object for MCP structured content. kenso's contract
errors (`QueryError`, `DocumentNotFoundError`, raised by the library) come back as kenso's
`{"error": ...}` payloads; other expected problems raise `KensoError` (tool errors).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from pathlib import PurePosixPath
from typing import TYPE_CHECKING
from typing import TypeVar

from kenso_git.api import search as search_api
from kenso_git.api.revpool import RevisionPool
from kenso_git.api.search import Scope
from kenso_git.api.search import make_snippet
from kenso_git.api.search import scope_for
from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import find_workspace
from kenso_git.config import Settings
from kenso_git.config import load_settings
from kenso_git.errors import DocumentNotFoundError
from kenso_git.errors import KensoError
from kenso_git.errors import NoIndexError
from kenso_git.errors import QueryError
from kenso_git.errors import ScopeError
from kenso_git.errors import shown as shown_arg
from kenso_git.serve import caps
from kenso_git.serve import docage
from kenso_git.serve import hostpath
from kenso_git.serve import status
from kenso_git.serve.door import door
from kenso_git.serve.reindex import reindexed

if TYPE_CHECKING:
    from kenso_git.api.git import Drift
    from kenso_git.api.results import AgentPage
    from kenso_git.api.results import ChangedDocs
    from kenso_git.api.results import CorrectedMulti
    from kenso_git.api.results import CorrectedSearch
    from kenso_git.api.results import DocResult
    from kenso_git.api.results import ErrorResult
    from kenso_git.api.results import HealthResult
    from kenso_git.api.results import HitList
    from kenso_git.api.results import ReindexResult
    from kenso_git.api.results import RelatedList
    from kenso_git.api.results import RelatedPage
    from kenso_git.api.results import RelatedRow
    from kenso_git.api.results import SnippetResult
    from kenso_git.api.results import StateResult
    from kenso_git.kb import KnowledgeBase
    from kenso_git.serve.caps import Reply
    from kenso_git.serve.caps import SearchReply
    from kenso_git.triggers.watcher import Watcher

SNIPPET_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})

# Answer types for type checkers only: made at import, ~10 ms of a first answer (#32)
S = TypeVar("S", "HitList", "CorrectedSearch", "CorrectedMulti", "AgentPage", "DocResult")


class Service:
    """Lazily opened knowledge base plus the scope gate, shared by all tool calls."""

    def __init__(self, start: Path | None = None, *, db: str | None = None) -> None:
        from kenso_git.api.index import open_at

        # an index named by --db is served at the root it records, and scoped to it (#26)
        self._opened = open_at(find_workspace(start), db)
        self.workspace: Workspace = self._opened.home.workspace
        self.settings: Settings = load_settings(self.workspace.root)
        self.scope: Scope = scope_for(self.workspace, self.settings)
        self._main: KnowledgeBase | None = None
        self._kb: KnowledgeBase | None = None  # the scoped index's, when the scope hides docs
        self._lock = threading.Lock()
        self.watcher: Watcher | None = None  # set by `serve` when it watches the checkout
        # `serve` starts a watcher soon (the stdio loop: once its first call is answered),
        # and why it could not, if so: health says "starting" or the reason, never "off"
        self.watch_planned = False
        self.watch_error: str | None = None
        # whether a tool the server offers writes (`reindex`): set where its tools are
        # listed (`build_server`, the stdio loop); health_check's `read_only` is the negation
        self.offers_writes = False
        # a CLI command answering once (`kenso-git state`): it never arms the query watch
        self.one_shot = False
        self.revisions = RevisionPool(self.settings.revision_copies)  # for calls with `ref`

    def main_kb(self) -> KnowledgeBase:
        """The knowledge base of the index itself, opened on first use (never creates it):
        the one the watcher keeps fresh."""
        with self._lock:
            return self._main_kb()

    def _main_kb(self) -> KnowledgeBase:
        if self._main is None:
            from kenso_git.kb import KnowledgeBase

            self._main = KnowledgeBase.of_opened(self._opened, self.settings)  # no 2nd peek
        return self._main

    def kb(self) -> KnowledgeBase:
        """The knowledge base agents' answers come from: the main index's, or, when the
        scope hides indexed docs (`agent-scoped-roots`), the scoped index made from it
        (serve/scoped.py: no statistic of a hidden doc reaches an answer, #27).
        Never creates the main index.
        """
        with self._lock:
            main = self._main_kb()
            if not self.scoped or not main.db_path.exists():
                return main
            if self._kb is None:
                from kenso_git.serve.scoped import ScopedKnowledgeBase

                scoped = ScopedKnowledgeBase(main, self.scope.rel_roots, self.scope.allows)
                scoped.follow()  # the first use builds it (once per scope and index)
                self._kb = scoped
            return self._kb

    def reload_rules(self) -> None:
        """Re-read settings and the scope gate (an ignore or config file was edited).

        Raises:
            ConfigError: the edited configuration is malformed (the old rules stay).
        """
        settings = load_settings(self.workspace.root)
        scope = scope_for(self.workspace, settings)
        with self._lock:
            self._kb = None  # the scoped index is judged again by the new rules
            self.settings, self.scope = settings, scope
            for kb in (self._main, self._kb):
                if kb is not None:
                    kb.settings = settings._replace(query_sync=kb.settings.query_sync)

    def require_index(self) -> KnowledgeBase:
        """The knowledge base, or NoIndexError when no index exists.

        Raises:
            NoIndexError: there is no index yet.
        """
        kb = self.kb()
        if not kb.has_index():
            raise NoIndexError(
                f"no search index yet ({self.shown(kb.db_path)} is missing)",
                hint="run `kenso-git ingest` in the repository; serving never creates an index",
            )
        return kb

    def shown(self, text: object) -> str:
        """`text` with the checkout's absolute path made repo-relative, and the recorded root
        of an index whose root is gone left unnamed (`serve.hostpath`): agents need not
        learn host paths."""
        return hostpath.shown(text, str(self.workspace.root), self._opened.home.lost)

    def gated(self) -> contextlib.AbstractContextManager[Callable[[str], bool]]:
        """This call's scope gate, for a `with` block: a path passes when it and its real
        path are in scope and the file there is the one the index read its text from (#27)."""
        return self.scope.gating(self.kb().same_file())

    @property
    def scoped(self) -> bool:
        """Whether `agent-scoped-roots` narrows the scope below the whole checkout."""
        return self.scope.roots != (self.scope.root,)

    def _flag_stale(self, structured: S) -> S:
        """`stale` and its reason on an answer the query-time sync could not make fresh
        (it gave up past the cap, failed, or another writer held the lock): #26."""
        reason = status.query_stale(self)
        if reason is not None:
            structured["stale"] = True
            structured["stale_reason"] = reason
        return structured

    def _limit(self, limit: int) -> int:
        return max(1, min(int(limit), self.settings.search_limit_max))

    @door
    def search_docs(
        self, query: str, category: str | None, limit: int, ref: str | None = None
    ) -> SearchReply:
        """`search_docs` within the scope, cut to the result cap; a blank query: kenso's error.
        With `ref`, over the docs at that revision: today's scope applied to its paths as
        written (`Scope.shows`: the files need not exist in the work tree).

        Raises:
            UsageError: `ref` names no commit.
        """
        try:
            if ref is not None:
                from kenso_git.serve.atref import search_docs_at

                raw = search_docs_at(self, ref, query, category, self._limit(limit))
            else:
                with self.gated() as gate:
                    raw = self.kb().search_docs(
                        query, category=category, limit=self._limit(limit), path_filter=gate
                    )
        except QueryError as err:
            return caps.refusal(err)
        text, structured = (
            caps.capped_hits(raw) if isinstance(raw, list) else caps.capped_corrected(raw)
        )
        if ref is None:
            self.kb().date_hits(structured["results"], "file_path")
        return text, self._flag_stale(structured)

    @door
    def search_multi(
        self, queries: list[str] | None, category: str | None, limit: int
    ) -> SearchReply:
        """`search_multi` within the scope, cut to the result cap; no queries: kenso's error.
        Queries past the fifth are not run: `truncated` says so in the structured copy."""
        from kenso_git.api.search import MULTI_MAX_QUERIES
        from kenso_git.api.search import multi_queries

        try:
            with self.gated() as gate:
                raw = self.kb().search_multi(
                    queries, category=category, limit=self._limit(limit), path_filter=gate
                )
        except QueryError as err:
            return caps.refusal(err)
        text, structured = (
            caps.capped_hits(raw) if isinstance(raw, list) else caps.capped_corrected(raw)
        )
        if len(multi_queries(queries)) > MULTI_MAX_QUERIES:
            structured["truncated"] = True
        self.kb().date_hits(structured["results"], "file_path")
        return text, self._flag_stale(structured)

    @door
    def get_doc(
        self, path: str, max_length: int | None, ref: str | None = None
    ) -> Reply[DocResult | ErrorResult, DocResult | ErrorResult]:
        """One scoped document, cut to fit the result cap; unknown path: kenso's error.
        With `ref`, the document as indexed from that revision (`serve/atref.py`); else
        dated by `serve/docage.py`, its structured copy flagged stale as search_docs' is.

        Raises:
            ScopeError: the path is refused by the scope gate.
            UsageError: `ref` names no commit.
        """
        cap = (
            caps.GET_DOC_MAX_CHARS
            if not max_length or max_length < 0
            else min(max_length, caps.GET_DOC_MAX_CHARS)
        )
        if ref is not None:
            from kenso_git.serve.atref import answer_at

            at_rel = self.scope.resolve_as_written(path)
            try:
                doc = answer_at(
                    self, ref, lambda at: caps.fitted_doc(at, at_rel, cap, in_work_tree=False)
                )
            except DocumentNotFoundError as err:
                return caps.refusal(err)
            return doc, doc.copy()
        rel, kb = caps.resolved(self.scope, self.kb, path), self.kb()
        try:
            # the file is looked up again at its approved real path, without following a
            # link swapped in since: the stored text is served only while it is that file
            doc = caps.fitted_doc(kb, rel, cap, self.scope.file_stat)
        except DocumentNotFoundError as err:
            # a scoped index leaves out a path the gate refuses now (a link swapped in since
            # the check, serve/scoped.py): the refusal names why, as the gate would have
            self.scope.resolve(path)
            with self.gated() as gate:  # a "did you mean" names only docs get_doc serves
                return caps.refusal(err, kb.near_paths(rel, path_filter=gate))
        docage.date_doc(kb, rel, doc, stale=status.query_stale(self) is not None)
        return doc, self._flag_stale(doc.copy())

    @door
    def get_related(
        self, path: str, depth: int, relation_type: str | None, cursor: str | None = None
    ) -> Reply[list[RelatedRow] | RelatedList, RelatedList]:
        """Scoped documents linked to `path`: kenso's array when it is the whole list, else
        a page of it (cut to the result cap, or resumed after `cursor`) saying what follows.

        Raises:
            ScopeError: the path is refused by the scope gate.
            CursorError: the cursor is not a next_cursor of this request.
        """
        scope = self.scope  # one reading of the rules, for the gate and the list's key
        rel = scope.resolve(path)
        with scope.gating(self.kb().same_file()) as gate:
            kept = search_api.NamedGate(gate, scope)  # its list serves the scope's next pages
            page = self.kb().get_related_page(
                rel, depth=depth, relation_type=relation_type, cursor=cursor, path_filter=kept
            )
        if cursor is None and not page.get("truncated"):
            return page["results"], {"results": page["results"]}
        return page, page

    @door
    def changed_docs(
        self,
        since: str,
        until: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        *,
        whole: bool = False,
    ) -> Reply[ChangedDocs, ChangedDocs]:
        """The docs the scope shows that changed from `since` to `until` (or the work tree):
        a page of them, from the one after `cursor`'s, cut by whole results to the result
        cap; `whole` (the command line): all of them, or the first `limit`, uncut.

        Raises:
            UsageError: a revision is unknown, this is not a git work tree, or the cursor
                is not a next_cursor of this range.
            GitError: git failed.
        """
        from kenso_git.serve.history import changed_docs

        out = changed_docs(self, since, until, limit, cursor, whole=whole)
        return out, out

    def drift(self) -> Drift:
        """Whether the upstream branch has newer agent instructions the scope shows."""
        from kenso_git.serve.history import instruction_drift

        return instruction_drift(self)

    @door
    def find_related(
        self, path: str, page_size: int | None, cursor: str | None
    ) -> Reply[RelatedPage, RelatedPage]:
        """A page of the scoped documents related to `path`, with why.

        Raises:
            ScopeError: the path is refused by the scope gate.
            DocumentNotFoundError: the index holds no document at the path.
            CursorError: the cursor is not one of this request's.
        """
        scope = self.scope  # one reading of the rules, for the gate and the list's key
        rel, kb = caps.resolved(scope, self.kb, path), self.kb()
        with scope.gating(kb.same_file()) as gate, caps.suggesting(kb, rel, gate):
            kept = search_api.NamedGate(gate, scope)  # its list serves the scope's next pages
            page = kb.find_related(rel, page_size=page_size, cursor=cursor, path_filter=kept)
        return page, page

    @door
    def read_snippet(
        self, path: str, query: str, max_tokens: int, ref: str | None = None
    ) -> Reply[SnippetResult, SnippetResult]:
        """The lines of a scoped Markdown file around the first match of `query`; with
        `ref`, of the file as it is in that revision.

        Raises:
            ScopeError: the path is refused, not Markdown, too large or binary.
            NoIndexError: there is no index.
            KensoError: the file cannot be read, or no line matches.
            UsageError: `ref` names no commit.
        """
        rel = self.scope.resolve(path) if ref is None else self.scope.resolve_as_written(path)
        self.require_index()  # no index, no tools: the same clear error everywhere
        if PurePosixPath(rel).suffix.lower() not in SNIPPET_SUFFIXES:
            raise ScopeError(
                f"path refused (not-markdown): {rel!r}: read_snippet reads Markdown files only",
                rule="not-markdown",
                path=rel,
            )
        if ref is None:
            data = caps.read_limited(self.scope, rel, self.settings.max_file_size)
        else:
            from kenso_git.serve.atref import file_at

            data = file_at(self, ref, rel)
        text = data.decode("utf-8", errors="replace")
        snip = make_snippet(text, query, max_tokens)
        if snip is None:
            raise KensoError(
                f"no line of {rel} matches {shown_arg(query)}",
                hint="try a shorter query or one distinctive word; an empty query reads the start",
                path=rel,
            )
        out: SnippetResult = {
            "path": rel,
            "line_start": snip.line_start,
            "line_end": snip.line_end,
            "text": snip.text,
            "truncated": snip.truncated,
            "token_budget": snip.token_budget,
        }
        return out, out

    @door
    def health(self) -> Reply[HealthResult, HealthResult]:
        """Whether the index is usable, learnt within the call's budget like any door's;
        never raises for a missing, broken or locked index, nor for one it had no time to
        read (`index: "unchecked"`)."""
        out = status.health_of(self)
        return out, out

    @door
    def state(self) -> Reply[StateResult, StateResult]:
        """Counts, size and freshness of the index, and the scoped roots.

        Raises:
            NoIndexError: there is no index.
        """
        out = status.state_of(self)
        return out, out

    @door
    def reindex(self) -> Reply[ReindexResult, ReindexResult]:
        """Sync the index with the work tree; the new counts, and whether a doc the scope
        shows changed: a change to hidden docs only is none (`serve/reindex.py`).

        Raises:
            NoIndexError: there is no index (reindex never creates one).
        """
        out = reindexed(self)
        return out, out

    @door
    def search(
        self,
        query: str,
        *,
        page_size: int | None = None,
        cursor: str | None = None,
        mode: str = "ranked",
        path: str | None = None,
        ext: str | None = None,
        modified_after: str | None = None,
        ref: str | None = None,
    ) -> Reply[AgentPage, AgentPage]:
        """A page of the query-language `search`, every hit through the scope gate; with
        `ref`, over the docs of that revision (`serve/atref.py`).

        Raises:
            ScopeError: `path` or an `in:` filter names a path the scope gate refuses.
            QuerySyntaxError: the query does not parse (the message names the token).
            CursorError: the cursor is not one of this request's.
            NoIndexError: there is no index.
            UsageError: `ref` names no commit.
        """
        from kenso_git.api.search import SearchRequest
        from kenso_git.api.search import parse

        check = self.scope.resolve if ref is None else self.scope.resolve_as_written
        folder = check(path) if path else None
        for given in parse(query).of("in"):
            check(given.value)  # refused, like get_doc, rather than trimmed
        request = SearchRequest(query, page_size, cursor, mode, folder, ext, modified_after)
        if ref is not None:
            from kenso_git.serve.atref import agent_page_at

            page = agent_page_at(self, ref, request)
            return page, page
        with self.gated() as gate:  # `re:` reads the gated docs' files as regex_search does
            page = self.kb().agent_search(request, path_filter=gate, open_file=self.scope.open_file)
        self.kb().date_hits(page["results"], "path")
        self._flag_stale(page)
        return page, page

    @door
    def regex_search(
        self,
        pattern: str,
        *,
        page_size: int | None = None,
        cursor: str | None = None,
        path: str | None = None,
        ext: str | None = None,
    ) -> Reply[AgentPage, AgentPage]:
        """A page of the lines of scoped docs matching an RE2 pattern.

        Raises:
            ScopeError: `path` is refused by the scope gate.
            PatternError: the pattern is too long or refused by RE2.
            CursorError: the cursor is not one of this request's.
            NoIndexError: there is no index.
        """
        from kenso_git.api.search import RegexRequest

        folder = self.scope.resolve(path) if path else None
        request = RegexRequest(pattern, page_size, cursor, folder, ext)
        with self.gated() as gate:
            opener = self.scope.open_file
            page = self.kb().agent_search(request, path_filter=gate, open_file=opener)
        self.kb().date_hits(page["results"], "path")
        self._flag_stale(page)
        return page, page
