"""Ignore rules with git's semantics: .gitignore (nested), info/exclude, core.excludesFile,
.cursorignore and .kensoignore, plus `exclude` patterns from the settings.

The ONLY pathspec user. Rules are layered like git's: a deeper ignore file overrides a
shallower one, inside one file the last matching pattern wins, and a file inside an
excluded directory cannot be re-included (the walker never enters such a directory;
`is_ignored` checks every ancestor for the same reason).

A long-lived reader (the MCP server) calls `reload_if_changed()` before each call: it stats
the rule files read so far (and the names where one could appear in a folder already
consulted) and starts afresh when any changed, so an edited `.gitignore` applies at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.records import NamedTuple
from kenso_git.repo.gitconfig import excludes_file
from kenso_git.repo.gitconfig import read_config
from kenso_git.repo.workspace import Workspace

if TYPE_CHECKING:
    import pathspec

IGNORE_FILES = (".gitignore", ".cursorignore", ".kensoignore")
# Both caches are keyed by folder; outside callers (agents' paths) can name any number of
# folders, so each is emptied when full instead of growing for the life of the server.
MAX_CACHED_FOLDERS = 8192
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".kenso"})


class _Source(NamedTuple):
    base: str  # folder the patterns are relative to ("" = root), no trailing slash
    spec: pathspec.GitIgnoreSpec

    def verdict(self, rel: str) -> bool | None:
        """True = ignored, False = re-included by a negation, None = no pattern matched."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1 :]
        result = self.spec.check_file(rel)
        return None if result.include is None else bool(result.include)


# Lines that change nothing here: `.kenso/` is never entered anyway (kenso-git writes it
# into info/exclude), so a repository with no other pattern never needs pathspec at all.
_NO_OP_LINES = frozenset({"/.kenso/", ".kenso/", "/.kenso", ".kenso"})


def _compile(lines: Iterable[str], base: str) -> _Source | None:
    cleaned = [line.rstrip("\r\n") for line in lines]
    if not any(
        line.strip() and not line.lstrip().startswith("#") and line.strip() not in _NO_OP_LINES
        for line in cleaned
    ):
        return None
    import pathspec  # ~25 ms to import: only when some pattern can match

    return _Source(base, pathspec.GitIgnoreSpec.from_lines(cleaned))


def _read_lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


Signature = tuple[int, int, int] | None  # (mtime_ns, size, inode); None: no such file


def _signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def signatures_hold(signatures: dict[str, Signature]) -> bool:
    """True when every rule file of `signatures` is still as it was (see `signatures()`)."""
    return all(_signature(path) == sig for path, sig in signatures.items())


def _base_sources(
    ws: Workspace, settings: Settings, watched: dict[str, Signature]
) -> list[_Source]:
    """excludesFile, info/exclude and settings.exclude, lowest precedence first."""
    base: list[_Source] = []
    if ws.is_git:
        assert ws.common_dir is not None
        for path in (excludes_file(read_config(ws)), ws.common_dir / "info" / "exclude"):
            watched[str(path)] = _signature(str(path))  # before reading: a later edit shows
            lines = _read_lines(path)
            if lines and (src := _compile(lines, "")) is not None:
                base.append(src)
    if settings.exclude and (src := _compile(settings.exclude, "")) is not None:
        base.append(src)
    return base


class IgnoreRules:
    """Layered ignore patterns for one work tree; folder files are loaded on demand."""

    __slots__ = (
        "_chain_cache",
        "_folder_cache",
        "_settings",
        "_watch",
        "_watched",
        "_ws",
        "base_sources",
        "root",
    )

    def __init__(self, root: Path, base_sources: list[_Source] | None = None) -> None:
        self.root = root
        self.base_sources = base_sources or []  # lowest precedence first
        self._folder_cache: dict[str, list[_Source]] = {}
        self._chain_cache: dict[str, list[_Source]] = {}
        self._watched: dict[str, Signature] = {}  # every rule file read (or probed) so far
        self._watch = False  # only long-lived readers pay for the stats
        self._ws: Workspace | None = None
        self._settings: Settings | None = None

    @classmethod
    def for_workspace(
        cls, ws: Workspace, settings: Settings, *, watch: bool = False
    ) -> IgnoreRules:
        """Rules that apply everywhere in `ws`: excludesFile, info/exclude, settings.exclude.

        `watch`: record what was read for `reload_if_changed()` (a server's scope); a walk
        that throws the rules away after one pass skips those stats."""
        watched: dict[str, Signature] = {}
        rules = cls(root=ws.root, base_sources=_base_sources(ws, settings, watched))
        rules._watched = watched if watch else {}
        rules._watch = watch
        rules._ws, rules._settings = ws, settings
        return rules

    def changed(self) -> bool:
        """True when a rule file read so far changed, appeared or vanished on disk."""
        return any(_signature(path) != sig for path, sig in list(self._watched.items()))

    def signatures(self) -> dict[str, Signature]:
        """Every rule file read (or probed) so far, with its signature then (`watch` only)."""
        return dict(self._watched)

    def reload_if_changed(self) -> bool:
        """Forget every cached rule when `changed()`; True when it did.

        Costs one stat per rule file consulted (three per folder seen, plus the base files).
        A change of `core.excludesFile` itself, or of `exclude`, needs a restart.
        """
        if not self.changed():
            return False
        watched: dict[str, Signature] = {}
        if self._ws is not None and self._settings is not None:
            self.base_sources = _base_sources(self._ws, self._settings, watched)
        self._watched = watched
        self._folder_cache = {}
        self._chain_cache = {}
        return True

    def folder_sources(self, folder: str) -> list[_Source]:
        """Patterns of the ignore files that live directly in `folder` ("" = root)."""
        return self._folder(folder)[0]

    def _folder(self, folder: str) -> tuple[list[_Source], bool]:
        """The folder's sources and whether they may be cached (the folder exists).

        When watching, a folder that does not exist is neither cached nor watched: outside
        callers name any number of them, and one created later is read when next consulted.
        A walk only consults folders it found, so it skips that check."""
        cached = self._folder_cache.get(folder)
        if cached is not None:
            return cached, True
        directory = self.root / folder if folder else self.root
        if self._watch and not directory.is_dir():
            return [], False
        found: list[_Source] = []
        for name in IGNORE_FILES:
            path = directory / name
            if self._watch and len(self._watched) < 3 * MAX_CACHED_FOLDERS:
                self._watched[str(path)] = _signature(str(path))
            lines = _read_lines(path)
            if lines and (src := _compile(lines, folder)) is not None:
                found.append(src)
        if len(self._folder_cache) >= MAX_CACHED_FOLDERS:
            self._folder_cache.clear()
        self._folder_cache[folder] = found
        return found, True

    def _sources_for(self, folder: str) -> list[_Source]:
        """Every source that applies inside `folder`, highest precedence first (memoised)."""
        cached = self._chain_cache.get(folder)
        if cached is None:
            cached, complete = self._build_chain(folder)
            if complete:  # a missing folder's chain would go stale when it is created
                if len(self._chain_cache) >= MAX_CACHED_FOLDERS:
                    self._chain_cache.clear()
                self._chain_cache[folder] = cached
        return cached

    def _build_chain(self, folder: str) -> tuple[list[_Source], bool]:
        chain = [""]
        if folder:
            parts = folder.split("/")
            chain += ["/".join(parts[: i + 1]) for i in range(len(parts))]
        levels: list[list[_Source]] = []
        complete = True
        for level in chain:  # root first: below a missing folder nothing exists to read
            found: list[_Source] = []
            if complete:
                found, complete = self._folder(level)
            levels.append(found)
        ordered: list[_Source] = []
        for found in reversed(levels):
            ordered.extend(reversed(found))
        ordered.extend(reversed(self.base_sources))
        return ordered, complete

    def _matches(self, rel: str, is_dir: bool) -> bool:
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        probe = rel + "/" if is_dir else rel
        for source in self._sources_for(folder):
            verdict = source.verdict(probe)
            if verdict is not None:
                return verdict
        return False

    def is_ignored(self, rel: str, *, is_dir: bool = False) -> bool:
        """True when `rel` (root-relative POSIX) or any folder above it is excluded."""
        parts = [p for p in rel.split("/") if p]
        if not parts:
            return False
        if any(p in ALWAYS_SKIPPED_DIRS for p in parts[:-1]) or (
            is_dir and parts[-1] in ALWAYS_SKIPPED_DIRS
        ):
            return True
        for i in range(1, len(parts)):
            if self._matches("/".join(parts[:i]), True):
                return True
        return self._matches("/".join(parts), is_dir)

    def is_ignored_in(self, folder: str, name: str, *, is_dir: bool) -> bool:
        """Walker fast path: `folder` is known not to be ignored; check one entry in it."""
        if is_dir and name in ALWAYS_SKIPPED_DIRS:
            return True
        rel = f"{folder}/{name}" if folder else name
        return self._matches(rel, is_dir)
