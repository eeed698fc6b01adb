"""The filters of the agent `search` (`in:`, `ext:`, `tag:`, `category:`, `modified:`,
`size:`, `re:`) over the documents' cached metadata; only `re:` reads text."""

from __future__ import annotations

import posixpath
import sqlite3
from typing import Protocol
from typing import TypeVar

from kenso_git.search import docmeta
from kenso_git.search.docmeta import Doc
from kenso_git.search.lang.docmatch import content_paths
from kenso_git.search.lang.docmatch import fts_expression
from kenso_git.search.lang.querylang import Filter
from kenso_git.search.lang.querylang import Term
from kenso_git.search.regex.grep import compile_pattern
from kenso_git.store import budget


class _HasDoc(Protocol):
    @property
    def doc(self) -> Doc: ...


C = TypeVar("C", bound=_HasDoc)


def passing(conn: sqlite3.Connection, f: Filter, docs: list[Doc]) -> set[str]:
    """The paths of `docs` that the filter (not negated) lets through."""
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
    pattern = compile_pattern(f.value)
    through = set()
    for path, text in docmeta.texts(conn, [d.path for d in docs]):
        budget.check()  # each document's text is searched in windows; the corpus is the budget's
        if pattern.matches(text):
            through.add(path)
    return through


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
    conn: sqlite3.Connection, filters: tuple[Filter, ...], candidates: list[C]
) -> list[C]:
    """The candidates every filter lets through (a negated one: those it does not)."""
    # regular expressions read document text: run them last, over the fewest documents
    for f in sorted(filters, key=lambda f: f.name == "re"):
        docs = [c.doc for c in candidates]
        through = passing(conn, f, docs)
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
