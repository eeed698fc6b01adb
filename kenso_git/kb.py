"""The library API that the CLI, the git hooks, the MCP server and the language server share.

`KnowledgeBase` ties a work tree, its settings and its index database together; its parts
live in `kenso_git.api` by what they own: `core` (where the index is, read connections, the
query-time freshness check), `reads` (search and documents), `state` (counts and
freshness) and `writes` (ingest and sync). The other `kenso_git.api` modules name what the
front ends use from the layers below, so no front end reaches past this API.

Reads that find no index raise `NoIndexError`; kenso's contract errors (an empty query, no
queries, an unknown document) are raised as `KensoError`s too, never returned as payloads.
"""

from __future__ import annotations

from kenso_git.api.core import BULK_INODES_AFTER
from kenso_git.api.core import PathFilter
from kenso_git.api.reads import Reads
from kenso_git.api.state import IndexState
from kenso_git.api.state import StateReads
from kenso_git.api.writes import Writes

__all__ = ["BULK_INODES_AFTER", "IndexState", "KnowledgeBase", "PathFilter"]


class KnowledgeBase(Reads, StateReads, Writes):
    """One repository's docs index: search it, read it, keep it fresh.

    Open one with `KnowledgeBase.open()`; opening never creates an index (`ingest` does).
    Reads raise `NoIndexError` when there is no index yet and `DatabaseError` when it
    cannot be read. The payload methods (`search_docs`, `search_multi`, `get_doc`,
    `get_related`) return kenso's JSON shapes (`kenso_git.search.results`). Safe to share
    between threads: each thread reads on its own connection.
    """
