"""Link targets: `relates_to` entries and how a target names a known path (pure).

Targets resolve with `resolve_link` below, which lint's KS002 and the index's link rebuild
(`kenso_git.index.links`) both use, so the stored graph and the linter agree.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator

from kenso_git.text.parse import Document
from kenso_git.text.parse import is_normal_path
from kenso_git.text.parse import normalise_target

GLOB_CHARS = ("*", "?")


def is_glob(target: str) -> bool:
    return any(ch in target for ch in GLOB_CHARS)


def raw_relations(doc: Document) -> str | None:
    """The document's usable relations (globs and empty targets dropped) as JSON, or None."""
    pairs = [
        [rel.target.strip(), rel.relation]
        for rel in doc.relations
        if rel.target.strip() and not is_glob(rel.target)
    ]
    return json.dumps(pairs, ensure_ascii=False) if pairs else None


class PathIndex(Collection[str]):
    """A set of repo-relative paths with a suffix lookup, built once per corpus."""

    __slots__ = ("_paths", "_suffixes")

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        suffixes: dict[str, str | None] = {}
        for path in self._paths:
            cut = path.find("/")
            while cut != -1:
                tail = path[cut + 1 :]
                # None marks an ambiguous suffix (more than one path ends with it).
                suffixes[tail] = None if tail in suffixes else path
                cut = path.find("/", cut + 1)
        self._suffixes = suffixes

    def __contains__(self, item: object) -> bool:
        return item in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def by_suffix(self, tail: str) -> str | None:
        """The one path ending in `/<tail>`, or None when none or several do."""
        return self._suffixes.get(tail)


def resolve_link(source: str, target: str, known_paths: Collection[str]) -> str | None:
    """Return the known path `target` names from `source`, or None when it names none.

    `./x.md` and `../x.md` are relative to the source's folder. A bare path is tried
    root-relative (a leading `/` is ignored), then relative to the source's folder, then
    as the suffix `/<target>` of exactly one known path (for docs written relative to a
    `docs/` ingest root, as kenso users did). The index resolves links with this same
    function, so lint's KS002 and the stored graph always agree.
    """
    target = target.strip()
    if not target or "*" in target or "?" in target:
        return None
    path = normalise_target(source, target)
    if not path or path == "." or path.startswith("../"):
        return None
    if path in known_paths:
        return path
    if target.startswith(("./", "../", "/")):
        return None
    folder = source.rpartition("/")[0]  # sources are normal repo paths: their dirname
    if folder:
        joined = f"{folder}/{target}"
        local = joined if is_normal_path(joined) else posixpath.normpath(joined)
        if local in known_paths:
            return local
    if isinstance(known_paths, PathIndex):
        return known_paths.by_suffix(path)
    matches = [p for p in known_paths if p.endswith("/" + path)]
    return matches[0] if len(matches) == 1 else None


class Resolver:
    """Resolves link targets against a fixed set of known paths (lint's rules, shared)."""

    def __init__(self, known: Collection[str], *, lookup_index: bool = True) -> None:
        # A suffix index pays off for many links; a few are resolved by scanning a set.
        self.index: Collection[str] = PathIndex(known) if lookup_index else frozenset(known)

    def target(self, source: str, raw: str) -> str:
        """The resolved path, else the target's root-relative normal form."""
        return resolve_link(source, raw, self.index) or normalise_target(source, raw)
