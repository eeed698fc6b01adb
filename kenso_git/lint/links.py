"""Resolve a `relates_to` target against the known document paths (shared with the index)."""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator

from kenso_git.parse import normalise_target


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
    folder = posixpath.dirname(source)
    if folder:
        local = posixpath.normpath(posixpath.join(folder, target))
        if local in known_paths:
            return local
    if isinstance(known_paths, PathIndex):
        return known_paths.by_suffix(path)
    matches = [p for p in known_paths if p.endswith("/" + path)]
    return matches[0] if len(matches) == 1 else None
