"""Signal `parallel` (#31): parallel and near-duplicate pages told apart by the words only
one of them has in its path or title.

Docs trees hold the same page once per language, platform or parent type
(`languages/js/exporters.md`, `languages/python/exporters.md`; Hugo's `methods/page/Title.md`,
`methods/site/Title.md`) and pairs of pages whose names differ by one word
(`toolbar-control-windows-forms.md`, `toolbar-control-overview-windows-forms.md`). Their
text is near-identical, so BM25 and the coverage signals rank them by chance; the word
that tells them apart ("site", "overview") is often only in the path or the title, where
it is one word among many. Here, among the first `TOP` documents, a page is put just
above a page ranked higher when the two are

* parallel: the same file name in another folder, the ranked page's file name named by
  the question; section pages: index pages of folders that share a parent; pages named
  after their folders that share a parent (`reference/ruby/ruby-generated.md`,
  `reference/cpp/cpp-generated.md`); or
* near-duplicates: in the same folder, one file name's words those of the other plus at
  most `MAX_EXTRA`;

and the question names a word of the page's own path or title that the ranked page lacks,
and no word the ranked page has and it lacks. A parallel page need not have matched the
question: a reference page for `site` whose body never says "returns" is found through its
`page` twin. The file names are read once per index generation, nothing at ingest.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Callable
from collections.abc import Sequence
from functools import lru_cache

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.abbrev import Spelled
from kenso_git.search.ranked.abbrev import collapse
from kenso_git.search.ranked.rank import INDEX_NAMES
from kenso_git.search.ranked.rankdocs import Doc
from kenso_git.search.ranked.rankdocs import all_words
from kenso_git.search.ranked.rankdocs import cache_key
from kenso_git.search.ranked.rankdocs import docs as read_docs
from kenso_git.search.ranked.rankdocs import path_words
from kenso_git.store import files

TOP = 10  # the agent's page: parallel pages further down are not looked at
MAX_EXTRA = 1  # near-duplicates: one file name's words the other's plus at most this many

Group = tuple[str, str]  # ("name", lower-case file name) or ("index", the folder's parent)


class Lift(NamedTuple):
    """`page` goes just above `above` (a page ranked higher)."""

    page: str
    above: str


# index file -> (generation, group -> the paths in it); entries are replaced whole
_group_cache: dict[str, tuple[object, dict[Group, tuple[str, ...]]]] = {}


def group_of(path: str) -> Group | None:
    """The parallel group of `path`: its file name; for a file named after its folder
    (`reference/ruby/ruby-generated.md`) the folder's parent and the rest of the name
    (`reference/generated.md`); for a section page its folder's parent (None for a
    top-level section page)."""
    folder, name = posixpath.split(path)
    low = name.lower()
    if low in INDEX_NAMES:
        return ("index", posixpath.dirname(folder)) if folder else None
    own = posixpath.basename(folder).lower()
    if own and low.startswith(own) and low[len(own) : len(own) + 1] in ("-", "_"):
        return ("named", posixpath.dirname(folder) + "/" + low[len(own) + 1 :])
    return ("name", low)


def is_near_duplicate(a: str, b: str) -> bool:
    """Whether `a` and `b` share a folder and one's file name words are the other's plus at
    most `MAX_EXTRA`."""
    folder_a, wa = _split(a)
    folder_b, wb = _split(b)
    if folder_a != folder_b:
        return False
    small, big = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return bool(small) and small < big and len(big - small) <= MAX_EXTRA


@lru_cache(maxsize=8192)  # the same candidates come back query after query
def _split(path: str) -> tuple[str, frozenset[str]]:
    """A path's folder and its file name's words, stop words kept and the extension not a
    word: `why.md` has one word and `about_Do.md` is no near-duplicate of `about_While.md`."""
    folder, name = posixpath.split(path)
    return folder, all_words(posixpath.splitext(name)[0].replace("-", " ").replace(".", " "))


def _groups(conn: sqlite3.Connection) -> dict[Group, tuple[str, ...]]:
    key = cache_key(conn)
    cached = _group_cache.get(key[0]) if key is not None else None
    if cached is not None and key is not None and cached[0] == key[1]:
        return cached[1]
    found: dict[Group, list[str]] = {}
    for path in files.indexed_paths(conn):
        group = group_of(path)
        if group is not None:
            found.setdefault(group, []).append(path)
    groups = {g: tuple(paths) for g, paths in found.items() if len(paths) > 1}
    if key is not None:
        _group_cache[key[0]] = (key[1], groups)
    return groups


class _Parallels:
    """The parallel pages of a path; the index's file names are read at the first path
    whose parallels may count (a CLI search often has none)."""

    def __init__(self, conn: sqlite3.Connection, wanted: frozenset[str]) -> None:
        self.conn, self.wanted = conn, wanted
        self.groups: dict[Group, tuple[str, ...]] | None = None

    def of(self, path: str) -> tuple[str, ...]:
        group = group_of(path)
        if group is None or (group[0] == "name" and not self.wanted & path_words(group[1])):
            return ()  # the question does not name the page the parallels share
        if self.groups is None:
            self.groups = _groups(self.conn)
        return self.groups.get(group, ())


def lifts(
    conn: sqlite3.Connection,
    wanted: frozenset[str],
    ranked: Sequence[str],
    spelled: tuple[Spelled, ...],
    admit: Callable[[str], bool],
    *,
    parallels: bool = True,
) -> list[Lift]:
    """The lifts of `ranked` (paths, best first) for the question's words `wanted`;
    `admit` says whether a page that is not in `ranked` may be shown (the search's
    filters). Without `parallels` (signal `near` alone) only near-duplicates are told
    apart, never the same file name in other folders."""
    twins = _Parallels(conn, wanted) if parallels else None
    order = list(ranked)
    out: list[Lift] = []
    i = 0
    while i < min(TOP, len(order)):
        top = order[i]
        near = [p for p in order[i + 1 : TOP] if is_near_duplicate(p, top)]
        above = set(order[:i])
        moved = {lift.page for lift in out}
        others = [
            p
            for p in dict.fromkeys([*(twins.of(top) if twins else ()), *near])
            if p != top and p not in above and p not in moved
        ]
        page = _contrast(conn, wanted, top, others, spelled) if others else None
        if page is None or (page not in order and not admit(page)):
            i += 1
            continue
        if page in order:
            order.remove(page)
        order.insert(i, page)
        out.append(Lift(page, top))
        i += 2
    return out


def _contrast(
    conn: sqlite3.Connection,
    wanted: frozenset[str],
    top: str,
    others: list[str],
    spelled: tuple[Spelled, ...],
) -> str | None:
    """The one page of `others` whose own path and title words (those `top` lacks) the
    question names most, when the question names none of `top`'s own; None on a tie, and
    None when `top` says the whole question in one field (its title, a heading or its
    summary fields hold every word): that is no near tie for a path word to break."""
    docs = read_docs(conn, [top, *others])
    ranked = docs.get(top)
    if ranked is not None and _states(wanted, ranked, spelled):
        return None

    def own(path: str) -> frozenset[str]:
        doc = docs.get(path)
        title = doc.title if doc is not None else frozenset()
        return collapse(path_words(path) | title, spelled)

    mine = own(top)
    best: str | None = None
    most, tied = 0, False
    for path in others:
        theirs = own(path)
        named = len(wanted & (theirs - mine))
        if not named or wanted & (mine - theirs):
            continue
        if named > most:
            best, most, tied = path, named, False
        elif named == most:
            tied = True
    return None if tied else best


def _states(wanted: frozenset[str], doc: Doc, spelled: tuple[Spelled, ...]) -> bool:
    """Whether one of `doc`'s fields holds every word of the question (`wanted`, its
    spelled-out names already read as one)."""
    fields = (doc.title, doc.summary, *doc.headings)
    return any(wanted <= collapse(field, spelled) for field in fields if field)
