"""The reads of the library API: ranked search, the agent surface's search and regex
search, documents and related documents. Each runs the freshness check, then one read
transaction; the payloads are kenso's JSON shapes (`kenso_git.search.results`)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import cast

from kenso_git.api.core import PathFilter
from kenso_git.api.writes import Writes
from kenso_git.errors import EmptyQueryError
from kenso_git.errors import KensoError
from kenso_git.store.files import load_files

if TYPE_CHECKING:
    from kenso_git.search.lang.agent import SearchRequest
    from kenso_git.search.ranked.cascade import SearchResult
    from kenso_git.search.regex.regex_search import RegexRequest
    from kenso_git.search.results import AgentPage
    from kenso_git.search.results import DocResult
    from kenso_git.search.results import RelatedList
    from kenso_git.search.results import RelatedPage
    from kenso_git.search.results import RelatedRow
    from kenso_git.search.results import SearchDocsResult
    from kenso_git.search.results import SearchMultiResult
    from kenso_git.store.doccommits import LastCommit


class Reads(Writes):
    """Search and read the index (see `KnowledgeBase`)."""

    def search(
        self,
        query: str,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchResult:
        """The ranked hits for `query` (limit clamped to `search-limit-max`); blank: none.

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import cascade as search

        limit = max(1, min(limit, self.settings.search_limit_max))
        synonyms = self._synonyms()
        return self.fresh_read(
            lambda conn: search.search(
                conn,
                query,
                category=category,
                limit=limit,
                synonyms=synonyms,
                path_filter=path_filter,
            )
        )

    def search_docs(
        self,
        query: str,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchDocsResult:
        """The `search_docs` tool's JSON payload (also what `search --json` prints): the
        hits, or `{"corrected_query", "original_query", "results"}` after a typo fix.

        Raises:
            EmptyQueryError: the query is blank (checked before the index is opened).
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import payload

        if not query or not query.strip():
            raise EmptyQueryError()
        result = self.search(query, category=category, limit=limit, path_filter=path_filter)
        return payload.search_docs_payload(result, preview_chars=self.settings.preview_chars)

    def search_multi(
        self,
        queries: Sequence[str] | None,
        *,
        category: str | None = None,
        limit: int = 5,
        path_filter: PathFilter | None = None,
    ) -> SearchMultiResult:
        """The `search_multi` payload: up to five queries fused by rank, blank ones dropped;
        `{"corrections", "results"}` when some query was corrected.

        Raises:
            NoIndexError: there is no index.
            NoQueriesError: `queries` is empty or None (checked after the index is opened).
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.ranked import payload

        synonyms = self._synonyms()
        return self.fresh_read(
            lambda conn: payload.search_multi_payload(
                conn,
                queries,
                category=category,
                limit=limit,
                limit_max=self.settings.search_limit_max,
                preview_chars=self.settings.preview_chars,
                synonyms=synonyms,
                path_filter=path_filter,
            )
        )

    def date_hits(self, items: Sequence[Mapping[str, object]], key: str) -> None:
        """Add each hit's `last_commit` (or `uncommitted: true`), `key` naming its path:
        from what the writers keep (#29), one query per answer, never a `git log` per hit.
        The `search_docs` tool and `search --json` print the same hits."""
        ages = self.last_commits({str(item[key]) for item in items})
        for item in items:
            age = ages.get(str(item[key]))
            if age is not None:
                cast("dict[str, object]", item).update(age.to_dict())  # a hit is a dict

    def last_commits(self, paths: Collection[str]) -> dict[str, LastCommit]:
        """path -> the commit that last changed the document as indexed (or that it is
        uncommitted), kept by every writer (#29); paths without a record are absent."""
        from kenso_git.store import doccommits

        return self.read(lambda conn: doccommits.read(conn, paths))

    def get_doc(
        self,
        path: str,
        *,
        max_length: int | None = None,
        file_stat: Callable[[str], os.stat_result | None] | None = None,
        in_work_tree: bool = True,
    ) -> DocResult:
        """The `get_doc` payload: the stored document at `path`, its content cut to
        `max_length` characters (plus `...` and `truncated: true`) when longer.

        The stored text is served only while the file on disk is the one it was read from:
        `file_stat` looks it up (the scope gate's `Scope.file_stat`, which never follows a
        link it did not approve); by default `os.stat` of the path. `in_work_tree=False`: the
        index answers for another revision (#29), whose files the work tree does not hold.

        A file changed since it was indexed is synced first, waiting a moment at most for
        another writer of the index, as a search's check does. When that sync fails (a
        read-only index, a full disk, a writer that holds the lock), the answer is the file
        as the work tree holds it now, read through the gate, and `freshness` says stale
        with the reason, as a search's query-time check says it
        (`index.refresh.ensure_fresh`): a read, never a write error.

        Raises:
            DocumentNotFoundError: the index holds no document at `path`, or the file is gone.
            ScopeError: the file changed, could not be synced, and is refused as it is now.
            KensoError: the file changed since it was indexed and the query-time check is
                off, or it kept changing while it was read.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.errors import DocumentNotFoundError
        from kenso_git.index.lock import QUERY_WAIT_S
        from kenso_git.index.refresh import disk_state
        from kenso_git.search.ranked import payload

        if not in_work_tree:
            return self.read(
                lambda conn: payload.get_doc_payload(conn, path, max_length=max_length)
            )
        self.refresh()
        for attempt in range(2):
            doc, row = self.read(
                lambda conn: (
                    payload.get_doc_payload(conn, path, max_length=max_length),
                    load_files(conn, [path]).get(path),
                )
            )
            # The file may have changed after the check (or with the check off): the stored
            # text is served only while the file on disk is still the one indexed.
            on_disk = disk_state(row, (file_stat or self._stat)(path))
            if on_disk == "racy":
                # a sync leaves a file stamped ahead of the clock racy: its bytes settle it
                from kenso_git.api.page import racy_unchanged

                assert row is not None  # racy: the row's stat data matched the file's
                same = racy_unchanged(self.workspace.root, path, file_stat, row)
                on_disk = "same" if same else "changed"
            if on_disk == "same":
                return doc
            if attempt or not self.settings.query_sync:
                break
            try:
                # as the query-time check: a moment for another writer, then the sync is
                # left to it (the rerun mark) and the work tree's page answers, flagged stale
                self.sync(paths=[path], hand_off=QUERY_WAIT_S, create=False)
            except KensoError as err:
                if self.lost_root is not None:
                    raise  # no work tree of the index's to read the page from
                if on_disk == "gone":
                    raise DocumentNotFoundError(path) from err
                return self._unsynced_doc(path, err, file_stat, max_length)
        if on_disk == "gone":
            raise DocumentNotFoundError(path)
        raise KensoError(
            f"{path} changed on disk since it was indexed",
            hint="run `kenso-git sync` (or turn query-sync on), then read it again",
            path=path,
        )

    def _unsynced_doc(
        self,
        path: str,
        err: KensoError,
        file_stat: Callable[[str], os.stat_result | None] | None,
        max_length: int | None,
    ) -> DocResult:
        """`get_doc`'s answer for a file whose sync failed with `err`: the work tree's page,
        flagged stale for the reason the query-time check gives a failed sync."""
        from kenso_git.api.page import work_tree_doc
        from kenso_git.errors import CorruptIndexError
        from kenso_git.index.refresh import Freshness

        doc = work_tree_doc(self.workspace.root, path, file_stat, self.settings, max_length)
        reason = f"the work tree changed and the sync failed: {err.message}"
        if isinstance(err, CorruptIndexError) and err.hint:
            reason = f"{reason}; {err.hint}"  # no later sync mends it: name the repair
        self.freshness = Freshness(True, reason)
        return doc

    def get_related(
        self,
        path: str,
        *,
        depth: int = 1,
        relation_type: str | None = None,
        path_filter: PathFilter | None = None,
    ) -> list[RelatedRow]:
        """The `get_related` payload: documents linked to `path` up to `depth` hops (1-3),
        nearest first; an unknown path gives [].

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.graph import related

        self.refresh()
        return self.read(
            lambda conn: related.get_related(
                conn, path, depth=depth, relation_type=relation_type, path_filter=path_filter
            )
        )

    def get_related_page(
        self,
        path: str,
        *,
        depth: int = 1,
        relation_type: str | None = None,
        cursor: str | None = None,
        path_filter: PathFilter | None = None,
    ) -> RelatedList:
        """`get_related`'s rows from the one after `cursor`'s, as many as one answer holds
        (`total`, `truncated` and `next_cursor` say what follows).

        Raises:
            CursorError: the cursor is malformed or from another request.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.graph import related

        self.refresh()
        return self.read(
            lambda conn: related.related_page(
                conn,
                path,
                depth=depth,
                relation_type=relation_type,
                cursor=cursor,
                path_filter=path_filter,
            )
        )

    def near_paths(self, path: str, *, path_filter: PathFilter | None = None) -> list[str]:
        """The indexed documents a `path` that names none may have meant (another case, a
        path written from a folder below the checkout's root, `.md` left off), shortest
        first, at most `store.pathreads.NEAR_PATHS_MAX`, each one `path_filter` allows: what
        a "did you mean" may name. Reads the index as it is (no freshness check: the caller
        has just read it).

        Raises:
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.store.chunkreads import install_path_filter
        from kenso_git.store.pathreads import near_paths

        def read(conn: sqlite3.Connection) -> list[str]:
            if path_filter is not None:
                install_path_filter(conn, path_filter)
            return near_paths(conn, path, gated=path_filter is not None)

        return self.read(read)

    def find_related(
        self,
        path: str,
        *,
        page_size: int | None = None,
        cursor: str | None = None,
        path_filter: PathFilter | None = None,
    ) -> RelatedPage:
        """A page of the documents linked to or from `path` and its neighbours, with why.

        Raises:
            DocumentNotFoundError: the index holds no document at `path`.
            CursorError: the cursor is malformed, from another request or stale.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.graph import neighbours

        self.refresh()
        return self.read(
            lambda conn: neighbours.find_related(
                conn, path, page_size=page_size, cursor=cursor, path_filter=path_filter
            )
        )

    def agent_search(
        self,
        request: SearchRequest | RegexRequest,
        *,
        path_filter: PathFilter | None = None,
        open_file: Callable[[str], int] | None = None,
    ) -> AgentPage:
        """One page of the agent surface's `search` (query language) or `regex_search`;
        `open_file` (the scope's) opens for either a doc indexed through a link.

        `re:` reads what `regex_search` greps (#49): each candidate's file as the work tree
        holds it (within `max-file-size`; `path_filter` chose the candidates), or, over the
        copy `at_revision` made, its blob at that revision (`api/doctexts.py`).

        Raises:
            QuerySyntaxError: the query does not parse (the message names the token).
            PatternError: a regular expression is too long or refused by RE2.
            CursorError: the cursor is malformed or from another request.
            NoIndexError: there is no index.
            DatabaseError: the index cannot be read.
        """
        from kenso_git.search.lang import agent
        from kenso_git.search.regex import regex_search

        root, limit = self.workspace.root, self.settings.max_file_size
        if isinstance(request, agent.SearchRequest):
            from kenso_git.api.doctexts import texts_for

            synonyms, ws = self._synonyms(), self.workspace
            return self.fresh_read(
                lambda conn: agent.search(
                    conn,
                    request,
                    path_filter=path_filter,
                    synonyms=synonyms,
                    texts=texts_for(conn, ws, limit, open_file),
                )
            )
        return self.fresh_read(
            lambda conn: regex_search.regex_search(
                conn,
                request,
                root=root,
                max_bytes=limit,
                path_filter=path_filter,
                open_file=open_file,
            )
        )
