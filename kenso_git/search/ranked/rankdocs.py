"""The words of each candidate document the ranking signals compare a query with.

Titles, headings, path and the summary fields (`aliases`, `answers`, `predicted_queries`,
`description`) of a document, as stemmed word sets, read once per index generation and
cached: the same candidates come back query after query, and reading their chunks costs
more than the search itself.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Sequence
from functools import lru_cache

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.query import STOP_WORDS
from kenso_git.store import chunkreads
from kenso_git.store.meta import read_value as read_meta_value
from kenso_git.store.schema import META_GENERATION

_WORD = re.compile(r"[^\W_]+")
# Names spelt with symbols the word pattern drops: to it `C++` and `C#` are `c`, `F#` is `f`
# and `.NET` is `net`, while the paths of the pages about them say `cpp`, `csharp`, `fsharp`
# and `dotnet` (one page per language: #31). Not inside a word or a host name
# (`example.net`, `ASP.NET`, `c++17`).
_SYMBOL_NAME = re.compile(r"(?<![\w+#.])(?:[cC]\+\+(?![\w+])|[cCfF]#(?![\w#])|\.(?:NET|net)\b)")
_SYMBOL_WORD = {"c++": " cpp ", "c#": " csharp ", "f#": " fsharp ", ".net": " dotnet "}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
STOP = STOP_WORDS | {"md", "mdx"}  # file extensions are in every path
# The labelled lines of a document's search labels (text.chunk.search_labels, spelt out:
# importing text.chunk would load the parser into every reader's start-up; a test holds
# them equal). The description line has no label; tags and the path have their own
# signals and BM25 columns.
SUMMARY_LABELS = (
    "Also known as: ",
    "Questions this document answers: ",
    "Predicted search queries: ",
)
OTHER_LABELS = ("Keywords: ", "Source: ")
# An `aliases:` entry that is a URL path (`/docs/x/`, `x/y.html`), as Hugo and Jekyll sites
# write redirects, not a name people ask by (`gcm`, `Get-Command`)
_URL_PATH = re.compile(r"\S*/\S*")


# the names of a folder's own page (`index.md`, `_index.md`, `README.md`), extension aside
INDEX_STEMS = frozenset({"index", "_index", "readme"})


class Doc(NamedTuple):
    """What the signals read of one document."""

    title: frozenset[str]
    title_key: str
    headings: tuple[frozenset[str], ...]
    vocab: frozenset[str]  # every title, heading and path word: what the idf signal counts
    summary: frozenset[str]  # its aliases, answers, predicted queries and description
    redirects: frozenset[str] = frozenset()  # its URL-path aliases (signal `redirects`)
    caps: frozenset[str] = frozenset()  # abbreviations its title and headings write (`initials`)


# index file -> (generation, file path -> Doc); entries are replaced whole, never mutated
_doc_cache: dict[str, tuple[object, dict[str, Doc]]] = {}


def stem(word: str) -> str:
    """A light suffix strip so `pointers`/`pointer` and `configuring`/`configure` meet."""
    w = word.lower()
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=8192)  # titles and headings of the same candidates come back query after query
def words(text: str) -> frozenset[str]:
    """The stemmed content words of `text`, camelCase split as well as whole; `C++`, `C#`,
    `F#` and `.NET` are the words their pages' paths use (`cpp`, `csharp`, ...)."""
    return frozenset(w for w in _stemmed(text) if w not in STOP)


def all_words(text: str) -> frozenset[str]:
    """`words(text)` with the stop words kept (`why`, `do`: a file name's words)."""
    return frozenset(_stemmed(text))


def _stemmed(text: str) -> set[str]:
    out: set[str] = set()
    if "+" in text or "#" in text or ".n" in text or ".N" in text:
        text = _SYMBOL_NAME.sub(lambda name: _SYMBOL_WORD[name[0].lower()], text)
    memo = _token_memo
    for token in _WORD.findall(text):
        stems = memo.get(token)
        if stems is None:
            stems = _token_stems(token)
        out.update(stems)
    return out


# token -> its stems, whole and camelCase parts: a corpus says the same few thousand words
# over and over, and a search reads the titles, headings and leads of every page it fetched
# that no search read before (each page's first search after a start or an ingest); emptied
# at TOKEN_MEMO entries, so its size is bounded whatever the corpus
_token_memo: dict[str, tuple[str, ...]] = {}
TOKEN_MEMO = 100_000


def _token_stems(token: str) -> tuple[str, ...]:
    parts = _CAMEL.split(token)
    stems = (stem(token), *(stem(p) for p in parts)) if len(parts) > 1 else (stem(token),)
    if len(_token_memo) >= TOKEN_MEMO:
        _token_memo.clear()
    _token_memo[token] = stems
    return stems


def path_words(path: str) -> frozenset[str]:
    """The words of a path's folder and file names."""
    return words(path.replace("-", " ").replace(".", " "))


def folder_words(path: str) -> frozenset[str]:
    """The words of the name of the folder `path` is in (none at the top)."""
    parts = path.split("/")
    return words(parts[-2].replace("-", " ")) if len(parts) >= 2 else frozenset()


def summary_words(labels: str | None) -> frozenset[str]:
    """The words of the summary fields among a document's search labels, but the
    `aliases` that are URL paths (`redirect_words`)."""
    return _label_words(labels)[0]


def redirect_words(labels: str | None) -> frozenset[str]:
    """The words of the `aliases` that are URL paths, a static site's redirects (#31)."""
    return _label_words(labels)[1]


def description(labels: str | None) -> str:
    """The description among a document's search labels: the paragraphs no label names."""
    return "\n\n".join(
        part
        for part in (labels or "").split("\n\n")
        if part and not part.startswith(SUMMARY_LABELS + OTHER_LABELS)
    )


def _label_words(labels: str | None) -> tuple[frozenset[str], frozenset[str]]:
    kept, urls = [], []
    for line in (labels or "").split("\n\n"):
        if line.startswith(OTHER_LABELS):
            continue
        label = next((x for x in SUMMARY_LABELS if line.startswith(x)), "")
        text = line[len(label) :]
        if label == SUMMARY_LABELS[0]:
            names = text.split(", ")
            urls += [a for a in names if _URL_PATH.fullmatch(a)]
            text = ", ".join(a for a in names if not _URL_PATH.fullmatch(a))
        kept.append(text)
    return words(" ".join(kept)), words(" ".join(urls).replace("/", " "))


def docs(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, Doc]:
    """The `Doc` of each of `paths` that has one, and of no other page: the signals that
    read every doc they are given (`initials` reads their abbreviations) must see the
    candidates of this search, not every page an earlier search read. Cached per index
    file and generation; the cache grows by the pages missing from it, never copied."""
    known: dict[str, Doc] = {}  # an in-memory index: nothing to key a cache on
    key = cache_key(conn)
    if key is not None:
        cached = _doc_cache.get(key[0])
        if cached is None or cached[0] != key[1]:  # none yet, or of an earlier generation
            cached = _doc_cache[key[0]] = (key[1], {})
        known = cached[1]
    missing = [p for p in paths if p not in known]
    if missing:
        known.update(_read_docs(conn, missing))
    return {p: known[p] for p in paths if p in known}


def cache_key(conn: sqlite3.Connection) -> tuple[str, object] | None:
    """(index file, write generation) of `conn`: what a per-process cache of an index's
    rows is keyed on; None for an in-memory index or one without a generation."""
    file = chunkreads.database_file(conn)
    if file is None:
        return None  # an in-memory index: nothing to key a cache on
    generation = read_meta_value(conn, META_GENERATION)
    return (file, generation) if generation is not None else None


def caps_words(text: str) -> frozenset[str]:
    """The abbreviations `text` writes (3 to 8 letters, all capitals but at most one:
    `WPF`, `FAQ`, `CRDs`), lower-cased as the fields' words are."""
    return frozenset(
        t.lower() for t in _CAPS.findall(text) if sum(c.isupper() for c in t) >= max(2, len(t) - 1)
    )


_CAPS = re.compile(r"\b[A-Za-z]{3,8}\b")


def _read_docs(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, Doc]:
    titles: dict[str, str] = {}
    headings: dict[str, set[str]] = {}
    for path, index, title, doc_title, section in chunkreads.headings(conn, paths):
        if index == 0 or path not in titles:  # a chunk title is "Doc title > Section"
            titles[path] = doc_title or (title or "").split(" > ", 1)[0]
        headings.setdefault(path, set()).add((section or "").rsplit(" > ", 1)[-1])
    summaries = {p: _label_words(labels) for p, labels in chunkreads.labels(conn, paths)}
    out = {}
    for p, title in titles.items():
        title_words = words(title)
        heads = tuple(dict.fromkeys(words(h) for h in sorted(headings[p])))
        vocab = title_words.union(path_words(p), *heads)
        summary, redirects = summaries.get(p, (frozenset(), frozenset()))
        key = " ".join(sorted(title_words))
        caps = caps_words(" ".join([title, *headings[p]]))
        out[p] = Doc(title_words, key, heads, vocab, summary, redirects, caps)
    return out


# A heading that is a link to another page, `### [about_X](about_X.md)`: its target.
_HEADING_LINK = re.compile(r"^\s*\[[^\]]*\]\(\s*<?([^)\s#?>]+)")
# The few columns a search row needs of a linked page's first chunk.
LinkTarget = tuple[int, str, str, str, str, "str | None"]


def heading_links(
    conn: sqlite3.Connection, rows: Sequence[tuple[str, str]], where: str, params: list[object]
) -> dict[tuple[str, str], LinkTarget]:
    """For each (file path, section path) whose last heading links to another indexed page
    (a hub's `### [about_X](about_X.md)` over that page's one-line summary), the first chunk
    of that page as `id, file_path, title, section_path, category, tags`. `where` and
    `params` are the search's filters on alias `c` (scope gate, category): a page they hide
    is not a target."""
    wanted: dict[tuple[str, str], str] = {}
    for path, section in rows:
        match = _HEADING_LINK.match(section.rsplit(" > ", 1)[-1])
        target = markdown_target(path, match.group(1)) if match is not None else None
        if target is not None and target != path:
            wanted[(path, section)] = target
    if not wanted:
        return {}
    first = link_targets(conn, sorted(set(wanted.values())), where, params)
    return {key: first[target] for key, target in wanted.items() if target in first}


def markdown_target(source: str, href: str) -> str | None:
    """The repo path a link to a Markdown file written in `source` names (relative to its
    folder, or to the root with a leading `/`); None for any other link."""
    if not href.lower().endswith((".md", ".markdown")) or "://" in href:
        return None
    folder = "" if href.startswith("/") else posixpath.dirname(source)
    return posixpath.normpath(posixpath.join(folder, href.lstrip("/")))


def link_targets(
    conn: sqlite3.Connection, paths: Sequence[str], where: str, params: list[object]
) -> dict[str, LinkTarget]:
    """The first chunk of each of `paths` the search's filters keep, as a hit's row."""
    cur = chunkreads.first_chunks(conn, paths, where, params)
    return {r[1]: (r[0], r[1], r[2] or "", r[3] or "", r[4] or "", r[5]) for r in cur}
