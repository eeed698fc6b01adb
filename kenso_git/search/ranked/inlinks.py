"""Signal `inlinks` (#31): the words other pages link to a page with are a field of that page.

The anchor-text field of web search: "see [configuring mutual TLS](../security/mtls.md)" says
in a reader's words what the linked page is about, often in words the page does not use.
For each indexed page this gathers the text of every link pointing at it from another page
(in sentences, lists, tables and headings alike): inline links, reference-style links
through their definition (`[text][label]`, `[label]`), and `ref`/`relref` shortcodes,
resolved as `anchors` resolves them (a Markdown path relative to the page or the root, a
site URL `/a/b/` tried under each folder above the page), else by the longest run of the
URL's last names that only one page's path ends with (`../x/` written relative to the
page's URL, a versioned or full address of the site). Links to the page itself, bare URLs,
and texts that only name the target's file or say nothing ("here", "read more") are left out.

`field` is what `rank` compares a question with: of the texts, those of which at least
half the words are neither the page's title or path nor words that links all over the
corpus use ("Windows", "Forms" on a .NET desktop site), and that are not the name of one of
its sections, at most `CAP`. A link text that restates the page's title is the title signal's
evidence counted twice.

Read from the chunks once per index generation and process, and cached: on the CLI (one
search a process) every search pays for it.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.anchors import candidates
from kenso_git.search.ranked.rankdocs import INDEX_STEMS
from kenso_git.search.ranked.rankdocs import cache_key
from kenso_git.search.ranked.rankdocs import path_words
from kenso_git.search.ranked.rankdocs import words
from kenso_git.store import chunkreads
from kenso_git.text.shortcode import REF_PATH

CAP = 24  # link texts per page: a page every page links to is not described by all of them
# words of link texts that say nothing of the page they point at
GENERIC = frozenset(
    words("here click read more learn see also this page link docs documentation details info")
    | words("above below following next previous back top guide article section")
)
# `[text](target)`: the target a bare path, `<a path>`, or a shortcode `{{< ref "x" >}}`
_INLINE = re.compile(
    r"\[([^\[\]\n]{1,200})\]\(\s*(\{\{[<%][^}\n]{0,200}[%>]\}\}|<[^>\n]+>|[^)\s]+)"
)
# `[text][label]`, `[text][]`, `[label]`: the target in the page's definition `[label]: target`
_REFERENCE = re.compile(r"\[([^\[\]\n]{1,200})\](?:\[([^\[\]\n]{0,100})\]|(?![(:]))")
_DEFINITION = re.compile(r"^ {0,3}\[([^\[\]\n]{1,100})\]:\s*<?([^\s>]+)", re.MULTILINE)
_NOT_A_LINK = ("!", "\\", "]")  # an image, an escaped bracket, a link's second bracket
_EXTENSIONS = (".md", ".markdown", ".html", ".htm", ".mdx")
_MARKUP = re.compile(r"`|\*\*|__|<[^>\n]*>")

NEW_SHARE = 0.5  # of a kept text's words, at least this share says more than the page's own
COMMON_SHARE = 0.03  # a word in the links to more than this share of the linked pages ...
COMMON_MIN = 5  # ... and to more than this many is the corpus's own ("Windows", "Forms")


class Inbound(NamedTuple):
    """What links say of the pages they point at."""

    texts: dict[str, tuple[frozenset[str], ...]]  # page -> the word sets of its links' texts
    common: frozenset[str]  # words in the links to many pages: they tell no page apart


# index file -> (generation, the inbound links)
_cache: dict[str, tuple[object, Inbound]] = {}


def inbound(conn: sqlite3.Connection) -> Inbound:
    """Each indexed page's inbound link texts (as word sets), cached per index file and
    generation."""
    key = cache_key(conn)
    cached = _cache.get(key[0]) if key is not None else None
    if cached is not None and key is not None and cached[0] == key[1]:
        return cached[1]
    found = gather(conn)
    if key is not None:
        _cache[key[0]] = (key[1], found)
    return found


def field(
    links: Inbound, path: str, own: frozenset[str], headings: Iterable[frozenset[str]] = ()
) -> frozenset[str]:
    """The words of `path`'s inbound link texts that say more than its `own` words (title,
    path), a heading of it, and the words links all over the corpus use: a text whose
    words are mostly those is the page's title or a section's, which other signals read.
    At most `CAP` texts."""
    known = own | GENERIC | links.common
    sections = tuple(h - known for h in headings)
    kept = []
    for text in links.texts.get(path, ()):
        new = text - known
        if len(new) < NEW_SHARE * len(text - GENERIC) or any(new <= h for h in sections):
            continue
        kept.append(text)
        if len(kept) == CAP:
            break
    return frozenset().union(*kept)


def gather(conn: sqlite3.Connection) -> Inbound:
    """Read every page's links and group their texts by the page they point at: each
    distinct text once, not the ones that only name the target's file or are generic."""
    indexed = list(chunkreads.first_chunk_tags(conn))
    paths = {p.lower(): p for p in indexed}  # a site's URLs are lower case, its files not
    names = {_name(p) for p in indexed} | {_name(posixpath.dirname(p)) for p in indexed}
    tails = _tails(indexed)
    resolved: dict[tuple[str, str], str | None] = {}
    texts: dict[str, dict[frozenset[str], None]] = {}
    for source, content in chunkreads.joined_texts(conn, sorted(indexed)):
        if "](" not in content and "]:" not in content:
            continue
        folder = posixpath.dirname(source)
        for text, href in _links(content):
            if "://" in text:
                continue
            if (folder, href) not in resolved:
                resolved[(folder, href)] = _resolve(source, href, paths, names, tails)
            target = resolved[(folder, href)]
            if target is None or target == source:
                continue
            said = words(_MARKUP.sub(" ", text))
            if said and not said <= path_words(target) | GENERIC:
                texts.setdefault(target, {})[said] = None
    spread = Counter(w for kept in texts.values() for w in frozenset().union(*kept))
    limit = max(COMMON_MIN, COMMON_SHARE * len(texts))
    common = frozenset(w for w, n in spread.items() if n > limit)
    return Inbound({p: tuple(kept) for p, kept in texts.items()}, common)


def _segments(href: str) -> list[str]:
    """A link's or a file's path as lower-case names, without the extension, an index
    file's name, a site's scheme and host, and version placeholders (`<K6_VERSION>`)."""
    href = href.partition("#")[0].partition("?")[0]
    if "://" in href:
        href = href.split("://", 1)[1].partition("/")[2]
    parts = [x.lower() for x in href.split("/") if x and x not in (".", "..")]
    parts = [x for x in parts if not x.startswith(("<", "{", "%"))]
    if parts and parts[-1].endswith(_EXTENSIONS):
        parts[-1] = parts[-1].rsplit(".", 1)[0]
    if parts and parts[-1] in INDEX_STEMS:
        parts.pop()
    return parts


def _tails(indexed: Iterable[str]) -> dict[str, str]:
    """Each trailing run of names (`b/c` of `a/b/c.md`) that only one page's path ends with."""
    owners: dict[str, set[str]] = {}
    for path in indexed:
        parts = _segments(path)
        for i in range(len(parts)):
            owners.setdefault("/".join(parts[i:]), set()).add(path)
    return {tail: next(iter(ps)) for tail, ps in owners.items() if len(ps) == 1}


def _links(content: str) -> Iterable[tuple[str, str]]:
    for match in _INLINE.finditer(content):
        if content[match.start() - 1 : match.start()] not in _NOT_A_LINK:
            yield match.group(1), match.group(2)
    if "]:" not in content:
        return
    defined = {m.group(1).casefold(): m.group(2) for m in _DEFINITION.finditer(content)}
    for match in _REFERENCE.finditer(content):
        if content[match.start() - 1 : match.start()] in _NOT_A_LINK:
            continue
        label = (match.group(2) or match.group(1)).casefold()
        if label in defined:
            yield match.group(1), defined[label]


def _name(path: str) -> str:
    """The last name of a path or URL, without its extension: what a link to it ends with."""
    last = path.partition("#")[0].partition("?")[0].rstrip("/").rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[0].lower() if last.endswith(_EXTENSIONS) else last.lower()


def _resolve(
    source: str, href: str, paths: dict[str, str], names: set[str], tails: dict[str, str]
) -> str | None:
    href = href.strip("<>")
    if href.startswith("{{"):
        code = REF_PATH.search(href)
        if code is None:
            return None
        href = code.group(1)
    if _name(href) not in names:  # most links point outside the docs: no candidates to try
        return None
    options = () if "://" in href else candidates(source, href)
    bare = href.partition("#")[0]
    if bare.lower().endswith((".md", ".markdown")) and not bare.startswith("."):
        # a static site's `ref` or root path names the file under its content folder
        options += candidates(source, "/" + bare.rsplit(".", 1)[0].lstrip("/") + "/")
    found = next((paths[p.lower()] for p in options if p.lower() in paths), None)
    if found is not None:
        return found
    # a page's URL written another way (`../x/` from the page's URL, a version in it, the
    # site's full address): the longest run of its last names that names one page only
    parts = _segments(href)
    shortest = 2 if "://" in href else 1
    for i in range(len(parts) - shortest + 1):
        tail = tails.get("/".join(parts[i:]))
        if tail is not None:
            return tail
    return None
