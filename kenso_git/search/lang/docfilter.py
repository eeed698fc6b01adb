"""The filters of the agent `search` (`in:`, `ext:`, `tag:`, `category:`, `modified:`,
`size:`, `re:`) over the documents' cached metadata; only `re:` reads text.

`re:` reads what `regex_search` greps (#49): each candidate's whole file, frontmatter and
H1 title line too, through the caller's `Texts` (the API's: the work tree through the scope
gate's safe open and `max-file-size`, or at a revision the revision's blobs). Without one
(a caller holding only the index), the indexed text: the chunks joined in order.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Protocol
from typing import TypeVar

from kenso_git.search import docmeta
from kenso_git.search.docmeta import Doc
from kenso_git.search.lang.docmatch import content_paths
from kenso_git.search.lang.docmatch import fts_expression
from kenso_git.search.lang.querylang import Filter
from kenso_git.search.lang.querylang import Term
from kenso_git.search.regex.grep import compile_pattern
from kenso_git.search.regex.literals import required_literals
from kenso_git.store import budget


class _HasDoc(Protocol):
    @property
    def doc(self) -> Doc: ...


C = TypeVar("C", bound=_HasDoc)


@dataclass(frozen=True, slots=True)
class Texts:
    """Where `re:` reads the documents' text: `read(paths)` yields (path, UTF-8 bytes) for
    each of `paths` it can read (one gone, refused, binary or over the size cap is left
    out: it cannot match), in any order, holding few in memory at once.

    `key` says what is read, for the caches of rankings: None when the text may change
    under the same index generation (the work tree), so a ranking read with it is never
    kept; equal keys read equal texts at one generation (a revision's blobs)."""

    read: Callable[[Sequence[str]], Iterator[tuple[str, bytes]]] = field(compare=False)
    key: Hashable = None


def passing(
    conn: sqlite3.Connection, f: Filter, docs: list[Doc], texts: Texts | None = None
) -> set[str]:
    """The paths of `docs` that the filter (not negated) lets through (`re:` reads them
    through `texts`, else the indexed text)."""
    if f.name == "in":
        folder = posixpath.normpath(f.value.strip().strip("/") or ".")  # `./docs`, `docs/./x`
        if folder == ".":
            return {d.path for d in docs}
        return {d.path for d in docs if d.path == folder or d.path.startswith(folder + "/")}
    if f.name == "ext":
        return {d.path for d in docs if d.path.lower().endswith("." + f.value)}
    if f.name == "tag":
        tag = f.value.casefold()
        return {d.path for d in docs if tag in d.tags}
    if f.name == "category":
        category = f.value.casefold()
        return {d.path for d in docs if (d.category or "").casefold() == category}
    if f.name == "modified":
        return {d.path for d in docs if d.modified >= f.number}
    if f.name == "size":
        return {d.path for d in docs if _compare(d.size, f.op, f.number)}
    return _grepped(conn, f.value, [d.path for d in docs], texts)


def _grepped(
    conn: sqlite3.Connection, source: str, paths: list[str], texts: Texts | None
) -> set[str]:
    """Those of `paths` whose text the RE2 pattern `source` matches: each document read
    once and searched once, in windows (linear in the candidates' bytes); the call's budget
    is checked between documents and windows, so the verdict is on every candidate or none."""
    pattern = compile_pattern(source)  # before any text is read
    needles = required_literals(source)
    read = texts.read if texts is not None else _indexed(conn)
    through = set()
    for path, data in read(paths):
        budget.check()
        # a document without one of the literals every match holds cannot match: RE2 skips it
        if all(n in data for n in needles) and pattern.search(data, 0) is not None:
            through.add(path)
    return through


def _indexed(conn: sqlite3.Connection) -> Callable[[Sequence[str]], Iterator[tuple[str, bytes]]]:
    """The indexed text's reader: the chunks joined in order, as UTF-8."""

    def read(paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        for path, text in docmeta.texts(conn, paths):
            yield path, text.encode("utf-8", "replace")

    return read


def _compare(size: int, op: str, number: int) -> bool:
    if op == ">":
        return size > number
    if op == ">=":
        return size >= number
    if op == "<":
        return size < number
    if op == "<=":
        return size <= number
    return size == number


def apply_filters(
    conn: sqlite3.Connection,
    filters: tuple[Filter, ...],
    candidates: list[C],
    texts: Texts | None = None,
) -> list[C]:
    """The candidates every filter lets through (a negated one: those it does not); `re:`
    reads their text through `texts`."""
    # regular expressions read document text: run them last, over the fewest documents
    for f in sorted(filters, key=lambda f: f.name == "re"):
        docs = [c.doc for c in candidates]
        through = passing(conn, f, docs, texts)
        candidates = [c for c in candidates if (c.doc.path in through) != f.negated]
    return candidates


def drop_negated(conn: sqlite3.Connection, negated: list[Term], candidates: list[C]) -> list[C]:
    """The candidates holding none of the negated words and phrases."""
    for term in negated:
        if fts_expression([term]) is None or not candidates:
            continue
        # the documents `word` would list in exhaustive mode (CJK too, #49): the same verdict
        matching = content_paths(conn, [Term(term.text, term.phrase)])
        candidates = [c for c in candidates if c.doc.path not in matching]
    return candidates
