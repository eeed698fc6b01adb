"""Every file and folder of the work tree, with a case-blind lookup and a typo's nearest
name: what lint's path rules judge links and code paths against (#30)."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator

NEAR_CUTOFF = 0.8  # difflib ratio of a name to its folder's closest entry: a typo


class TreeIndex(Collection[str]):
    """Every file and folder of the work tree (repo-relative POSIX), with a case-blind lookup.

    `ignored` folders (ignored by git, so not listed file by file) exist with all they hold;
    under an `absent` one (a submodule not checked out) nothing can be judged.
    """

    __slots__ = (
        "_children",
        "_folded",
        "_folded_top",
        "absent",
        "dirs",
        "files",
        "ignored",
        "top",
    )

    def __init__(
        self, files: Iterable[str], ignored: Iterable[str] = (), absent: Iterable[str] = ()
    ) -> None:
        self.absent = tuple(sorted(p.rstrip("/") for p in absent))
        self.files = frozenset(files)
        dirs: set[str] = set()
        for path in self.files:
            cut = path.rfind("/")
            while cut > 0:
                folder = path[:cut]
                if folder in dirs:
                    break
                dirs.add(folder)
                cut = path.rfind("/", 0, cut)
        self.ignored = tuple(sorted(p.rstrip("/") for p in ignored))
        self.dirs = frozenset(dirs) | frozenset(self.ignored)
        self.top = frozenset(p.split("/", 1)[0] for p in (*self.files, *self.dirs))
        self._folded: dict[str, str | None] | None = None
        self._folded_top: frozenset[str] | None = None
        self._children: dict[str, list[str]] | None = None

    def __contains__(self, item: object) -> bool:
        if item in self.files or item in self.dirs:
            return True
        return isinstance(item, str) and self._under_ignored(item)

    def in_absent(self, path: str) -> bool:
        """Whether `path` is under a submodule that is not checked out."""
        return _under(self.absent, path)

    def _under_ignored(self, path: str) -> bool:
        return _under(self.ignored, path)

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def case_of(self, path: str) -> str | None:
        """The one path of the tree that differs from `path` in case only, else None."""
        if self._folded is None:
            folded: dict[str, str | None] = {}
            for known in (*self.files, *self.dirs):
                key = known.casefold()
                folded[key] = None if key in folded else known
            self._folded = folded
        return self._folded.get(path.casefold())

    @property
    def folded_top(self) -> frozenset[str]:
        """The top-level names, case-folded: a name `case_of` may match is among them."""
        if self._folded_top is None:
            self._folded_top = frozenset(name.casefold() for name in self.top)
        return self._folded_top

    def near(self, path: str) -> str | None:
        """The entry of `path`'s folder whose name is closest to its name (a typo), or None
        when the folder is not in the tree or no name is close."""
        if self._children is None:
            children: dict[str, list[str]] = {}
            for known in (*self.files, *self.dirs):
                folder, _, name = known.rpartition("/")
                children.setdefault(folder, []).append(name)
            self._children = children
        folder, _, name = path.rpartition("/")
        names = self._children.get(folder)
        if not names:
            return None
        close = difflib.get_close_matches(name, names, n=1, cutoff=NEAR_CUTOFF)
        return f"{folder}/{close[0]}" if close and folder else (close[0] if close else None)


def _under(folders: tuple[str, ...], path: str) -> bool:
    """Whether `path` lies under one of the sorted `folders`."""
    at = bisect.bisect_right(folders, path) - 1
    return at >= 0 and path.startswith(folders[at] + "/")
