"""`find_related`: the documents linked to or from one document, then its neighbours.

A document is related through the link graph (`relates_to` entries both ways, inline
Markdown links both ways: `links_to`, `linked_from`) or by where it lives: the same stem
(`api/auth.md` and `guides/auth.md`) or the same folder. Each related document is listed
once with every reason, links first, then same stem, then same folder, ties by path. Only
indexed documents that `path_filter` lets through are listed: an out-of-scope neighbour is
never revealed, not even by a count. Pages use the ranked offset cursors of `pagination`.

Walking every page of a long list costs about what its first page does: a request without
a cursor lists the related documents, judging only those (and the start) by the gate, and
keeps the list (per index generation, path and scope, as `get_related` keeps its lists:
search/graph/kept.py); a page with a cursor is cut from it. The gate judges the start and
every path a page shows again (each is one hop from the start: no other doc is on its way),
and the list is made again if it refuses one now: a kept list never shows a path the gate
refuses, though until the index changes its `total` may count a document the files on disk
hide since.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.errors import DocumentNotFoundError
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.graph import kept
from kenso_git.store import edges
from kenso_git.text.links import LINKS_TO

if TYPE_CHECKING:
    from kenso_git.search.results import RelatedFile
    from kenso_git.search.results import RelatedPage

PathFilter = Callable[[str], bool]
# the order reasons are listed and ranked in (a lower index is a stronger reason)
REASONS = ("links_to", "linked_from", "relates_to", "related_from", "same_stem", "same_folder")

# one related document, in the list's order: (path, why, relation types, title)
_Entry = tuple[str, tuple[str, ...], tuple[str, ...], str | None]


def _stem(path: str) -> str:
    name = path.rpartition("/")[2]
    return name.rpartition(".")[0] or name


_Found = dict[str, tuple[set[str], set[str]]]  # path -> (reasons, relation types)


def _reasons(conn: sqlite3.Connection, path: str, docs: dict[str, docmeta.Doc]) -> _Found:
    found: _Found = {}

    def add(other: str, why: str, relation: str | None = None) -> None:
        if other == path or other not in docs:
            return
        reasons, relations = found.setdefault(other, (set(), set()))
        reasons.add(why)
        if relation is not None:
            relations.add(relation)

    for _, target, relation in edges.outgoing(conn, path):
        if relation == LINKS_TO:
            add(target, "links_to")
        else:
            add(target, "relates_to", relation)
    for source, _, relation in edges.incoming(conn, path):
        if relation == LINKS_TO:
            add(source, "linked_from")
        else:
            add(source, "related_from", relation)
    folder, stem = path.rpartition("/")[0], _stem(path)
    for other in docs:
        if other.rpartition("/")[0] == folder:
            add(other, "same_folder")
        elif _stem(other) == stem:
            add(other, "same_stem")
    return found


def _listed(conn: sqlite3.Connection, path: str, path_filter: PathFilter | None) -> list[_Entry]:
    """Every document related to `path` that the gate lets through, in the answer's order.

    The gate judges the start and the related documents only: a document related to
    nothing is never listed, so judging every indexed one (a `fstatat` each) told nothing.

    Raises:
        DocumentNotFoundError: no indexed document (that `path_filter` allows) is `path`.
    """
    docs = docmeta.load(conn)
    if path not in docs or (path_filter is not None and not path_filter(path)):
        raise DocumentNotFoundError(path)
    found = _reasons(conn, path, docs)
    if path_filter is not None:
        found = {other: why for other, why in found.items() if path_filter(other)}
    # each set of reasons is ranked and ordered once, and is one tuple object however many
    # documents share it: a kept list of a hub's thousands of entries holds each once
    shapes: dict[frozenset[str], tuple[int, tuple[str, ...]]] = {}
    ranked: list[tuple[int, str, tuple[str, ...], tuple[str, ...]]] = []
    for other, (reasons, relations) in found.items():
        kind = frozenset(reasons)
        shape = shapes.get(kind)
        if shape is None:
            why = tuple(sorted(reasons, key=REASONS.index))
            shape = shapes[kind] = (REASONS.index(why[0]), why)
        ranked.append((shape[0], other, shape[1], tuple(sorted(relations))))
    ranked.sort()  # strongest reason first, ties by path (each path is listed once)
    return [(other, why, relations, docs[other].title) for _, other, why, relations in ranked]


def find_related(
    conn: sqlite3.Connection,
    path: str,
    *,
    page_size: int | None = None,
    cursor: str | None = None,
    path_filter: PathFilter | None = None,
) -> RelatedPage:
    """One page of the documents related to `path`.

    Raises:
        DocumentNotFoundError: no indexed document (that `path_filter` allows) is `path`.
        StaleCursorError: the cursor was issued before the index changed.
        CursorError: the cursor is malformed or from another request.
    """
    size = pagination.clamp_page(page_size)
    generation = docmeta.generation(conn)
    check = pagination.request_check("related", path)
    offset = pagination.read_offset(cursor, check, generation)

    def walk() -> list[_Entry]:
        return _listed(conn, path, path_filter)

    def page(entries: Sequence[_Entry]) -> RelatedPage:
        return _page(path, entries, offset, size, check, generation)

    # the request names its tool: get_related's is (path, depth, relation_type)
    key = kept.list_key(conn, path_filter, ("find_related", path))
    if key is None:
        return page(walk())
    if not cursor:  # a first page lists the documents as they are now, and keeps the list
        return page(kept.keep(key, walk()))
    out = page(kept.get_or_walk(key, walk))
    if path_filter is None or _all_pass(path_filter, path, out["results"]):
        return out
    # the gate refuses a path it let through when the list was made: make it again
    return page(kept.keep(key, walk()))


def _all_pass(gate: PathFilter, path: str, results: list[RelatedFile]) -> bool:
    """Whether the gate lets through the start and every path `results` show."""
    return gate(path) and all(gate(item["path"]) for item in results)


def _page(
    path: str,
    entries: Sequence[_Entry],
    offset: int,
    size: int,
    check: str,
    generation: object,
) -> RelatedPage:
    """The page of at most `size` entries from `offset`, cut to the answer budget."""
    page: RelatedPage = {
        "path": path,
        "results": [
            {"path": other, "why": list(why), "relation_types": list(relations), "title": title}
            for other, why, relations, title in entries[offset : offset + size]
        ],
        "total": len(entries),
        "returned": 0,
        "page_size": size,
        "next_cursor": None,
        "has_more": False,
        "token_budget": 0,
    }
    return _fit(page, offset, len(entries), check, generation)


def _fit(page: RelatedPage, offset: int, total: int, check: str, generation: object) -> RelatedPage:
    """The page cut to the answer budget, its cursor resuming after the last entry kept."""
    while True:
        shown = len(page["results"])
        more = offset + shown < total
        page["returned"] = shown
        page["has_more"] = more
        page["next_cursor"] = (
            pagination.offset_cursor(offset + shown, check, generation) if more else None
        )
        page["token_budget"] = pagination.MAX_ANSWER_CHARS // pagination.CHARS_PER_TOKEN
        chars = len(json.dumps(page, indent=2, ensure_ascii=False))
        if chars <= pagination.MAX_ANSWER_CHARS or shown <= 1:
            break
        page["results"].pop()
    page["token_budget"] = -(-chars // pagination.CHARS_PER_TOKEN)
    return page
