"""Rebuild the `links` table from the files' raw `relates_to` entries and inline links.

Unresolved `relates_to` targets are kept in their root-relative normal form, so a link
starts working as soon as its target appears; inline Markdown links (`links_to`) are kept
only when they name an indexed document. The raw entries of every file live in
`files.relations`, so the whole links table is a pure function of (raw entries, indexed
paths) and is rebuilt whenever either changes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from collections.abc import Iterator

from kenso_git.store.files import indexed_paths
from kenso_git.store.files import is_indexed
from kenso_git.store.files import relations_after
from kenso_git.store.files import relations_naming
from kenso_git.store.files import stored_relations
from kenso_git.store.links import Link
from kenso_git.store.links import add_links
from kenso_git.store.links import clear_links_except
from kenso_git.store.links import drop_links
from kenso_git.store.links import drop_links_of_unrelated
from kenso_git.store.links import links_of_type_from
from kenso_git.store.links import replace_links
from kenso_git.text.links import LINKS_TO
from kenso_git.text.links import Resolver
from kenso_git.text.links import resolve_link

# Past this many files appearing or vanishing (a branch switch), every link is re-resolved.
MAX_MOVED = 50
# Past this many raw entries, the indexed paths are read in one scan instead of asked one by
# one: a lookup reads its files row whole (an overflowing WITHOUT ROWID row is compared in
# full), so one doc of 150k `relates_to` entries made each lookup read its 2 MB (#14).
MAX_LOOKUPS = 256
# Files whose raw entries a full rebuild reads and links at a time (memory bounded, #32).
PAGE = 2000


def update_links(
    conn: sqlite3.Connection, reindexed: Collection[str], moved: Collection[str]
) -> None:
    """Links after a write in which the files `moved` appeared or vanished (inside the
    caller's transaction): the re-indexed files' own links, and those of the files whose raw
    entries contain a moved file's name, are resolved anew; no other link can change.

    A link resolves by exact path, folder-relative path or a unique suffix of one indexed
    path, so its resolution changes only when a file ending in its normal form appears or
    vanishes, and that normal form ends in the file's name, which comes from the raw entry's
    own text. A save that creates, deletes or renames one doc re-resolves a few links, not
    thousands.
    """
    if len(moved) > MAX_MOVED:
        rebuild_links(conn)
        return
    names = {path.rpartition("/")[2] for path in moved}
    sources = {*reindexed, *moved, *relations_naming(conn, names)}
    rebuild_links(conn, sources=sorted(sources))


def rebuild_links(conn: sqlite3.Connection, sources: Collection[str] | None = None) -> None:
    """Recompute links from the files' raw entries (inside the caller's transaction).

    With `sources`, only those files' links are rewritten: right when the set of indexed
    paths is unchanged, since then no other file's targets can resolve differently.
    Without, `relates_to` links are rewritten and inline links (thousands in a docs tree,
    each resolving by exact path only) are compared with the stored ones and only the
    difference is written: a created or deleted file changes a few rows, not every one.
    The files' raw entries are read and linked a page at a time (`PAGE`): at 100,000 docs
    holding every file's entries and links at once was the writer's peak memory (#32).
    """
    if sources is not None:
        rows = stored_relations(conn, sources)
        for source in sources:
            replace_links(conn, source, [])
        if rows:
            many = len(sources) > 50 or _entries(rows) > MAX_LOOKUPS
            few = Resolver(indexed_paths(conn) if many else _IndexedPaths(conn), lookup_index=many)
            declared, inline = _links(few, rows)
            add_links(conn, [*declared, *inline.values()])
        return
    clear_links_except(conn, LINKS_TO)
    drop_links_of_unrelated(conn, LINKS_TO)  # files with no raw entries now link nowhere
    resolver: Resolver | None = None
    after = ""
    while rows := relations_after(conn, after, PAGE):
        after = rows[-1][0]
        if resolver is None:  # most corpora declare no relations: no path index to build
            resolver = Resolver(indexed_paths(conn), lookup_index=True)
        declared, inline = _links(resolver, rows)
        add_links(conn, declared)
        stored = links_of_type_from(conn, LINKS_TO, [source for source, _ in rows])
        drop_links(conn, LINKS_TO, stored - inline.keys())
        add_links(conn, [inline[pair] for pair in inline.keys() - stored])


def _entries(rows: list[tuple[str, str]]) -> int:
    return sum(len(json.loads(relations)) for _, relations in rows)


def _links(
    resolver: Resolver, rows: list[tuple[str, str]]
) -> tuple[list[Link], dict[tuple[str, str], Link]]:
    """The declared links and the inline links (one per (source, target)) of `rows`."""
    declared: list[Link] = []
    inline: dict[tuple[str, str], Link] = {}
    for source, relations in rows:
        raws = json.loads(relations)
        relates = [(raw, relation) for raw, relation in raws if relation != LINKS_TO]
        targets = resolver.targets(source, [raw for raw, _ in relates])
        declared += (
            (source, target, relation, raw)
            for target, (raw, relation) in zip(targets, relates, strict=True)
        )
        for raw, relation in raws:
            if relation == LINKS_TO and (link := _inline(resolver, source, raw)) is not None:
                inline.setdefault((source, link[1]), link)
    return declared, inline


class _IndexedPaths(Collection[str]):
    """The indexed paths for a few sources' links: each asked by its primary key, and all
    of them read only when a link needs a suffix lookup (a hook's sync at 30x read 48,600
    rows to resolve a few links)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._all: list[str] | None = None

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and is_indexed(self._conn, item)

    def _paths(self) -> list[str]:
        if self._all is None:
            self._all = indexed_paths(self._conn)
        return self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    def __len__(self) -> int:
        return len(self._paths())


def _inline(resolver: Resolver, source: str, raw: str) -> Link | None:
    """The link row of one inline Markdown link: kept only when it names an indexed
    document. A broken link in prose is no relation (a `relates_to` entry is kept
    unresolved, as kenso does). The rebuild runs again whenever the indexed paths change."""
    target = resolve_link(source, raw, resolver.index)
    if target is None or target == source:
        return None
    return (source, target, LINKS_TO, raw)
