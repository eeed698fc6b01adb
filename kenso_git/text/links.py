"""Link targets: `relates_to` entries, inline Markdown links, and how a target names a
known path (pure).

Targets resolve with `resolve_link` below, which lint's KS002 and the index's link rebuild
(`kenso_git.index.links`) both use, so the stored graph and the linter agree. Inline links
(`[text](other.md)`, `[text](../x.md#anchor)`) to Markdown files are stored beside the
`relates_to` entries with the relation `links_to` (`LINKS_TO`), relative to the document.
"""

from __future__ import annotations

import json
import posixpath
import re
from array import array
from bisect import bisect_left
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.text.mdlinks import LINK
from kenso_git.text.mdlinks import scan_links
from kenso_git.text.parse import Document
from kenso_git.text.parse import is_normal_path
from kenso_git.text.parse import normalise_target

GLOB_CHARS = ("*", "?")
LINKS_TO = "links_to"  # the relation type of an inline Markdown link
MAX_INLINE_LINKS = 1000  # per document: a generated index page links to many, not to more
_MARKDOWN = (".md", ".markdown")
# A relative path `posixpath.normpath` leaves as it is, with no glob character and no blank
# at either end: every segment non-empty and neither `.` nor `..` (Resolver.targets).
_SEGMENT = r"(?!\.\.?(?:/|$))[^/*?]+"
_PLAIN = re.compile(rf"(?!\s){_SEGMENT}(?:/{_SEGMENT})*(?<![\s/])")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


_GLOB = re.compile("[*?]")  # GLOB_CHARS: one search, not a generator per entry (#14)


def is_glob(target: str) -> bool:
    return _GLOB.search(target) is not None


def raw_relations(doc: Document) -> str | None:
    """The document's usable relations (globs and empty targets dropped) and its inline
    links to Markdown files (`links_to`) as JSON, or None."""
    glob = _GLOB.search
    pairs = [
        [target, rel.relation]
        for rel in doc.relations
        if (target := rel.target.strip()) and glob(target) is None
    ]
    pairs += [[target, LINKS_TO] for target in inline_links(doc)]
    return json.dumps(pairs, ensure_ascii=False) if pairs else None


def _link_target(raw: str) -> str | None:
    """`raw` as a document-relative path to a Markdown file, or None (a URL, an anchor of
    this document, another kind of file)."""
    target = raw.partition("#")[0].partition("?")[0]
    if not target or ":" in target.partition("/")[0] or target.startswith("//"):
        return None  # https://..., mailto:..., a protocol-relative URL
    if "{{" in target:
        return None  # a site template (`/docs/{{< param version >}}/x.md`): not a path
    if "%" in target:
        target = _ESCAPE.sub(lambda m: chr(int(m[1], 16)), target)
    if not target.lower().endswith(_MARKDOWN) or "*" in target:  # "?" went with the query
        return None
    return target if target.startswith(("./", "../", "/")) else "./" + target


def inline_links(doc: Document) -> list[str]:
    """The distinct targets of the document's inline links to Markdown files, in order,
    each relative to the document (`./x.md`) or to the root (`/x.md`): the links lint
    checks (`text.mdlinks`: CommonMark destinations, outside code and escaped brackets),
    so the stored graph and the linter agree. Linear in the body's length."""
    found = dict[str, None]()
    name = doc.path.rpartition("/")[2]
    for ref in scan_links(doc)[0]:
        if ref.kind != LINK:
            continue
        target = _link_target(ref.target)
        # a link to the document itself is no relation (its file name tells cheaply)
        if target is not None and (
            not target.endswith(name) or normalise_target(doc.path, target) != doc.path
        ):
            found.setdefault(target, None)
            if len(found) >= MAX_INLINE_LINKS:
                break
    return list(found)


class PathIndex(Collection[str]):
    """A set of repo-relative paths with a suffix lookup, built once per corpus.

    Every suffix of every path (`c/d.md` and `d.md` of `a/c/d.md`) is one 64-bit word in a
    sorted array: the suffix's hash in the high bits, the path's position in the low ones. No
    string and no dictionary entry per suffix: at 100,000 paths the strings were ~100 MB
    and then the dictionary ~60 MB of a writer's peak (#32); the array is 8 bytes a suffix.
    A lookup reads the words of the tail's hash and checks each path against the tail, so
    a hash two suffixes share never gives a wrong answer, and it stops at the second path
    that ends in the tail (a shared suffix such as `index.md` costs no scan of its paths).
    """

    __slots__ = ("_bits", "_keys", "_names", "_paths")
    _hash = staticmethod(hash)  # tests make it collide

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        self._names = names = tuple(self._paths)
        self._bits = bits = max(1, len(names).bit_length())
        high, key = _WORD & ~((1 << bits) - 1), self._hash
        # words spread over buckets by their top byte and each bucket sorted alone: the
        # sort holds one bucket's integers as objects, never every suffix's at once
        buckets = [array("Q") for _ in range(256)]
        for at, path in enumerate(names):
            cut = path.find("/")
            while cut != -1:
                word = key(path[cut + 1 :]) & high | at
                buckets[word >> 56].append(word)
                cut = path.find("/", cut + 1)
        keys = array("Q")
        for bucket in buckets:
            keys.extend(sorted(bucket))
            del bucket[:]
        self._keys = keys

    def __contains__(self, item: object) -> bool:
        return item in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def by_suffix(self, tail: str) -> str | None:
        """The one path ending in `/<tail>`, or None when none or several do."""
        keys, names, low = self._keys, self._names, (1 << self._bits) - 1
        first = self._hash(tail) & _WORD & ~low
        ending, found = "/" + tail, None
        for at in range(bisect_left(keys, first), len(keys)):
            word = keys[at]
            if word & ~low != first:
                break
            path = names[word & low]
            if path.endswith(ending) and path != found:
                if found is not None:
                    return None  # a second path ends in the tail
                found = path
        return found


_WORD = (1 << 64) - 1  # the suffix array's words are unsigned 64-bit


def resolve_link(source: str, target: str, known_paths: Collection[str]) -> str | None:
    """Return the known path `target` names from `source`, or None when it names none.

    `./x.md` and `../x.md` are relative to the source's folder. A bare path is tried
    root-relative (a leading `/` is ignored), then relative to the source's folder, then
    as the suffix `/<target>` of exactly one known path (for docs written relative to a
    `docs/` ingest root, as kenso users did). The index resolves links with this same
    function, so lint's KS002 and the stored graph always agree.
    """
    return _resolve(source, target, known_paths)[0]


def resolve_links(source: str, targets: Sequence[str], index: PathIndex) -> list[str | None]:
    """`resolve_link(source, target, index)` of each target, in one loop: a doc may declare
    166k (#14). A plain relative path (normal, no glob, no `./`, no blank at either end) is
    its own normal form, and so is `<source folder>/<path>`: it takes three lookups and no
    normalising; any other target takes `_resolve`."""
    folder = source.rpartition("/")[0]
    prefix = f"{folder}/" if folder else ""
    known, suffix, plain = index._paths, index.by_suffix, _PLAIN.fullmatch
    out: list[str | None] = []
    for target in targets:
        if plain(target) is None:
            out.append(_resolve(source, target, index)[0])
        elif target in known:
            out.append(target)
        elif prefix and prefix + target in known:
            out.append(prefix + target)
        else:
            out.append(suffix(target))
    return out


def _resolve(source: str, target: str, known_paths: Collection[str]) -> tuple[str | None, str]:
    """(what `resolve_link` answers, the target's root-relative normal form), the normal form
    computed once (a doc of 150k `relates_to` entries computed it twice per entry)."""
    target = target.strip()
    path = normalise_target(source, target)
    if not target or "*" in target or "?" in target:
        return None, path
    if not path or path == "." or path.startswith("../"):
        return None, path
    if path in known_paths:
        return path, path
    if target.startswith(("./", "../", "/")):
        return None, path
    folder = source.rpartition("/")[0]  # sources are normal repo paths: their dirname
    if folder:
        joined = f"{folder}/{target}"
        local = joined if is_normal_path(joined) else posixpath.normpath(joined)
        if local in known_paths:
            return local, path
    if isinstance(known_paths, PathIndex):
        return known_paths.by_suffix(path), path
    matches = [p for p in known_paths if p.endswith("/" + path)]
    return (matches[0] if len(matches) == 1 else None), path


class Resolver:
    """Resolves link targets against a fixed set of known paths (lint's rules, shared)."""

    def __init__(self, known: Collection[str], *, lookup_index: bool = True) -> None:
        # A suffix index pays off for many links; a few are resolved against `known` as
        # given (the index's lookups by primary key: no copy of every path).
        self.index: Collection[str] = PathIndex(known) if lookup_index else known

    def target(self, source: str, raw: str) -> str:
        """The resolved path, else the target's root-relative normal form."""
        found, normal = _resolve(source, raw, self.index)
        return found or normal

    def targets(self, source: str, raws: Sequence[str]) -> list[str]:
        """`target(source, raw)` of each raw entry, in one loop (a doc may declare 166k)."""
        index = self.index
        if not isinstance(index, PathIndex):
            return [self.target(source, raw) for raw in raws]
        plain = _PLAIN.fullmatch
        return [
            found if found is not None else raw if plain(raw) else normalise_target(source, raw)
            for found, raw in zip(resolve_links(source, raws, index), raws, strict=True)
        ]
