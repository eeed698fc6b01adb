"""Folders whose files are not the project's: nested repositories and environment folders.

Ingest never enters a folder holding a `.git` (a submodule or a nested repository: its docs
are its own) nor an environment folder (a virtualenv, `node_modules`...: third-party files),
and the scope gate refuses what ingest would not look at (`repo/discover.py`,
`repo/scope.py`). Both decide by the same functions here.

What marks such a folder is on disk and may appear at any time (`git init a`, `python -m
venv a`), so the gate looks at the markers again at each call: `Foreign` remembers a folder's
verdict for one round (a tool call), each folder looked at once a round, never longer.
`MarkCache` is for a check of every folder holding an indexed doc (the query-time sync's,
`FolderWatch`): it looks at a folder's markers again only when the folder's stat data
changed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Collection
from collections.abc import Iterable

from kenso_git.repo.workspace import is_markdown

# Folders of installed third-party code: their READMEs and licences are not the project's.
ENV_FOLDER_NAMES = frozenset(
    {"node_modules", "bower_components", "site-packages", "__pycache__", ".tox", ".nox"}
    | {".pytest_cache", ".mypy_cache", ".ruff_cache"}
)
ENV_FOLDER_MARKERS = ("pyvenv.cfg", "conda-meta")  # a virtualenv, a conda environment
MARKER_NAMES = (".git", *ENV_FOLDER_MARKERS)  # every name a folder is looked at for
MAX_KNOWN_FOLDERS = 200_000  # verdicts a round keeps at most

ENVIRONMENT = 1  # the folder, or one above it, is an environment folder
NESTED = 2  # the folder, or one above it, holds a `.git`: a nested repository or submodule
# A folder changed this recently may change again within one tick of its file system's
# clock, keeping its mtime: its marks are looked at again next time.
SETTLE_NS = 2_000_000_000


def is_environment(path: str, name: str) -> bool:
    """A folder of installed third-party code: a virtualenv, `node_modules`, a tool cache."""
    if name in ENV_FOLDER_NAMES:
        return True
    return any(os.path.lexists(os.path.join(path, marker)) for marker in ENV_FOLDER_MARKERS)


def is_nested_repository(path: str) -> bool:
    """A folder holding a `.git` (a folder or a file): a nested repository or a submodule."""
    return os.path.lexists(os.path.join(path, ".git"))


def in_nested_repository(root: str | os.PathLike[str], rel: str) -> bool:
    """Whether a folder on the way to `rel` holds a `.git`: a nested repository or a submodule."""
    parts = rel.split("/")[:-1]
    return any(is_nested_repository(os.path.join(root, *parts[: i + 1])) for i in range(len(parts)))


def in_environment(root: str | os.PathLike[str], rel: str) -> bool:
    """Whether a folder on the way to `rel` is an environment folder (`is_environment`)."""
    parts = rel.split("/")[:-1]
    return any(
        is_environment(os.path.join(root, *parts[: i + 1]), parts[i]) for i in range(len(parts))
    )


def _own(root: str, folder: str, above: int = 0) -> int:
    """The marks of `folder` itself that `above` (its parent's) does not already carry."""
    if above & ENVIRONMENT:
        return 0  # refused as an environment whatever else is there
    location = os.path.join(root, folder)
    found = ENVIRONMENT if is_environment(location, folder.rpartition("/")[2]) else 0
    if not above & NESTED and is_nested_repository(location):
        found |= NESTED
    return found


class Foreign:
    """Whether a folder, or one above it, is not the project's, each folder looked at once
    per round: `begin` starts a round (the gate begins one at each call), so a marker made
    since the last call is seen by the next one.

    A round's verdicts live in a dict of their own: a thread still judging by an older round
    writes into that round's dict, never into a newer one, so no verdict is older than the
    round it is read in. Folders the work tree lacks are judged as empty folders."""

    __slots__ = ("_round",)

    def __init__(self) -> None:
        self._round: dict[str, int] = {}

    def begin(self) -> None:
        """Look at every folder's markers afresh from now on."""
        self._round = {}

    def marks(self, root: str, folder: str) -> int:
        """`ENVIRONMENT` and `NESTED` bits of `folder` ("" = the root, never either) and
        the folders above it, within `root`."""
        memo = self._round
        missing: list[str] = []
        found = 0
        while folder:
            known = memo.get(folder)
            if known is not None:
                found = known
                break
            missing.append(folder)
            folder = folder.rpartition("/")[0]
        if len(memo) + len(missing) > MAX_KNOWN_FOLDERS:
            memo.clear()
        for each in reversed(missing):
            found |= _own(root, each, found)
            memo[each] = found
        return found


class MarkCache:
    """The folders' own marks, each kept with the folder's stat data: a look at a folder
    whose stat data is unchanged costs one `stat` (a marker made or removed in it changes
    its mtime and ctime); one changed since is looked at again. Marks seen within
    `SETTLE_NS` of the folder's last change are not kept (a coarse clock may give a later
    change the same mtime)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple[int, int, int, int], int]] = {}

    def foreign(self, root: str, folders: Iterable[str]) -> set[str]:
        """Of `folders` (under `root`, "" = the root itself), those that are, or lie in, a
        nested repository or an environment folder; each folder above them looked at once."""
        now = time.time_ns()  # before any stat: a change after it has a later mtime
        marks: dict[str, int] = {"": 0}

        def marks_of(folder: str) -> int:
            missing: list[str] = []
            while folder not in marks:
                missing.append(folder)
                folder = folder.rpartition("/")[0]
            found = marks[folder]
            for each in reversed(missing):
                found |= self._own(root, each, now)
                marks[each] = found
            return found

        return {folder for folder in folders if marks_of(folder)}

    def _own(self, root: str, folder: str, now: int) -> int:
        try:
            st = os.stat(os.path.join(root, folder))  # where its markers would be, as lexists
        except OSError:
            return 0  # nothing there: its files are gone, which git says
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        known = self._known.get(folder)
        if known is not None and known[0] == key:
            return known[1]
        found = _own(root, folder)
        if max(st.st_mtime_ns, st.st_ctime_ns) < now - SETTLE_NS:
            if len(self._known) >= MAX_KNOWN_FOLDERS:
                self._known.clear()
            self._known[folder] = (key, found)
        return found


class FolderWatch:
    """A check of the folders holding indexed docs, from one check to the next: which of
    them are foreign now (their docs are to be dropped), and which of those found foreign
    earlier are the project's again (the marker removed: their docs are to be read again,
    though git lists none of them)."""

    __slots__ = ("_dropped", "_marks")

    def __init__(self) -> None:
        self._marks = MarkCache()
        self._dropped: set[str] = set()  # found foreign; not seen holding indexed docs since

    def look(self, root: str, held: Collection[str]) -> tuple[set[str], list[str]]:
        """Of the folders `held` (holding indexed docs), those that are, or lie in, a
        nested repository or an environment folder; and the Markdown files of the folders
        found so before that are the project's again and hold no indexed doc yet."""
        foreign = self._marks.foreign(root, [*held, *self._dropped])
        back: list[str] = []
        for folder in sorted(self._dropped - foreign):
            names = [] if folder in held else _markdown_names(os.path.join(root, folder))
            if not names:
                self._dropped.discard(folder)  # its docs are back in the index, or gone
            back += [f"{folder}/{name}" if folder else name for name in names]
        found = {folder for folder in foreign if folder in held}
        if len(self._dropped) + len(found) <= MAX_KNOWN_FOLDERS:
            self._dropped |= found
        return found, back


def _markdown_names(location: str) -> list[str]:
    with contextlib.suppress(OSError), os.scandir(location) as entries:
        return sorted(entry.name for entry in entries if is_markdown(entry.name))
    return []
