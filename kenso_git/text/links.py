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
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.text.parse import Document
from kenso_git.text.parse import is_normal_path
from kenso_git.text.parse import normalise_target

GLOB_CHARS = ("*", "?")
LINKS_TO = "links_to"  # the relation type of an inline Markdown link
MAX_INLINE_LINKS = 1000  # per document: a generated index page links to many, not to more
MAX_LINK_SCANS = 20_000  # `](` looked at per document: a pathological body stops there
# The target of `](target)` or `](<target> "title")`: every repeat is bounded, so a match
# attempt costs a constant and scanning a body is linear in its length.
_TARGET = re.compile(
    r"[ \t]{0,8}<?([^\s()<>]{1,1024})>?"
    r"(?:[ \t]{1,8}(?:\"[^\"\n]{0,512}\"|'[^'\n]{0,512}'))?[ \t]{0,8}\)"
)
LINK_TARGET = _TARGET  # text.mdlinks reads every link's target with the same pattern
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


def _outside_fences(doc: Document) -> Iterator[tuple[int, int]]:
    start = 0
    for fence_start, fence_end in doc.fences:
        if fence_start > start:
            yield start, fence_start
        start = max(start, fence_end)
    if start < len(doc.body):
        yield start, len(doc.body)


def _link_target(raw: str) -> str | None:
    """`raw` as a document-relative path to a Markdown file, or None (a URL, an anchor of
    this document, another kind of file)."""
    target = raw.partition("#")[0].partition("?")[0]
    if not target or ":" in target.partition("/")[0] or target.startswith("//"):
        return None  # https://..., mailto:..., a protocol-relative URL
    if "%" in target:
        target = _ESCAPE.sub(lambda m: chr(int(m[1], 16)), target)
    if not target.lower().endswith(_MARKDOWN) or "*" in target:  # "?" went with the query
        return None
    return target if target.startswith(("./", "../", "/")) else "./" + target


def inline_links(doc: Document) -> list[str]:
    """The distinct targets of the document's inline links to Markdown files, in order,
    outside fenced code and inline code spans, each relative to the document (`./x.md`)
    or to the root (`/x.md`). Linear in the body's length."""
    body, found, scans = doc.body, dict[str, None](), 0
    name = doc.path.rpartition("/")[2]
    for start, end in _outside_fences(doc):
        ticks, counted = 0, start
        at = body.find("](", start, end)
        while at >= 0 and len(found) < MAX_INLINE_LINKS and scans < MAX_LINK_SCANS:
            scans += 1
            newline = body.rfind("\n", counted, at)
            if newline >= 0:  # a new line: inline code spans do not cross lines here
                ticks, counted = 0, newline + 1
            ticks += body.count("`", counted, at)
            counted = at
            match = _TARGET.match(body, at + 2, end)
            if match is not None and ticks % 2 == 0:
                target = _link_target(match[1])
                # a link to the document itself is no relation (its file name tells cheaply)
                if target is not None and (
                    not target.endswith(name) or normalise_target(doc.path, target) != doc.path
                ):
                    found.setdefault(target, None)
            at = body.find("](", at + 2, end)
    return list(found)


class PathIndex(Collection[str]):
    """A set of repo-relative paths with a suffix lookup, built once per corpus.

    Every suffix of every path (`c/d.md` and `d.md` of `a/c/d.md`) is looked up by its
    hash and length, not kept as a string: at 100,000 paths the strings were ~100 MB, a writer's
    peak (#32). An entry holds one path ending in that suffix (`_Many` when several do),
    and each answer is checked against the path, so a hash shared by two different
    suffixes never gives a wrong one: such a suffix goes to `_exact`, keyed by its text.
    """

    __slots__ = ("_exact", "_paths", "_suffixes")
    _hash = staticmethod(hash)  # tests make it collide

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        suffixes: dict[int, str | _Many] = {}
        exact: dict[str, str | None] = {}  # suffixes whose hash another suffix has
        key = self._hash
        for path in self._paths:
            cut = path.find("/")
            while cut != -1:
                tail = path[cut + 1 :]
                cut = path.find("/", cut + 1)
                if tail in exact:  # None marks an ambiguous suffix
                    exact[tail] = None
                    continue
                h = key(tail) << 32 | len(tail)  # one suffix of each length per path
                held = suffixes.get(h)
                if held is None:
                    suffixes[h] = path
                elif (held.first if isinstance(held, _Many) else held).endswith("/" + tail):
                    suffixes[h] = held if isinstance(held, _Many) else _Many(held)
                else:  # another suffix has this hash
                    exact[tail] = path
        self._suffixes = suffixes
        self._exact = exact

    def __contains__(self, item: object) -> bool:
        return item in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def by_suffix(self, tail: str) -> str | None:
        """The one path ending in `/<tail>`, or None when none or several do."""
        if tail in self._exact:
            return self._exact[tail]
        held = self._suffixes.get(self._hash(tail) << 32 | len(tail))
        if held is None or isinstance(held, _Many) or not held.endswith("/" + tail):
            return None
        return held


class _Many:
    """A suffix several paths end in (`first` is one of them: what identifies it)."""

    __slots__ = ("first",)

    def __init__(self, first: str) -> None:
        self.first = first


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
