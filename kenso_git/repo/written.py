"""The scope gate's checks on a path as written (`Scope.shows`, and `Scope.allows` before it
looks on disk): a text no argument may hold, `..`, an internal folder, outside the scoped
roots, excluded by the ignore rules.

A search asks the gate about every candidate path, tens of thousands on a large repository,
and its first call decides each of them (`Scope` keeps the verdicts until the rules are read
again). What depends only on the folder (its parts, the scoped roots, the ignore rules on the
folder and every folder above it, whether it exists) is decided once per folder
(`folder_state`), with string operations; a path then costs its own text checks and one match
of its name (`IgnoreRules.is_ignored_in`). A path not written as the index writes one (`a//b`,
`./a`, `/a`) is normalised and judged in full by `decide`, as every path once was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from pathlib import PurePosixPath
from typing import Protocol

from kenso_git.repo.pathtext import unindexable

INTERNAL_DIRS = frozenset({".git", ".kenso"})
MAX_CACHED_VERDICTS = 200_000

# What a folder's files are, as far as the folder decides (`folder_state`).
HIDDEN = 0  # refused whatever their names: `..` or an internal or ignored folder on the way
SHOWN = 1  # in scope: each one's own name decides
EACH = 2  # outside every scoped root but perhaps a root naming one file: judged in full


class IsIgnored(Protocol):
    """Whether the ignore rules exclude a repo-relative path (`IgnoreRules.is_ignored`),
    judged as a folder with `is_dir`: git's `private/` excludes only a folder; with
    `every_entry` too, a folder whose every entry they exclude (`private/**`)."""

    def __call__(self, rel: str, /, *, is_dir: bool = False, every_entry: bool = False) -> bool: ...


class IsIgnoredIn(Protocol):
    """Whether the ignore rules exclude `name` in `folder` ("" = the root), the folder and
    every one above it known not to be (`IgnoreRules.is_ignored_in`)."""

    def __call__(self, folder: str, name: str, /, *, is_dir: bool) -> bool: ...


class Rules(Protocol):
    """What the verdicts are decided by (a `Scope`)."""

    @property
    def root(self) -> Path: ...
    @property
    def roots(self) -> tuple[Path, ...]: ...
    @property
    def is_ignored(self) -> IsIgnored: ...
    @property
    def is_ignored_in(self) -> IsIgnoredIn | None: ...


class Verdicts:
    """Verdicts on paths as written by one reading of the rules: each path's, and what each
    folder decides for its files (dict operations are atomic: threads share them). Only
    what was decided in a folder that exists is kept: the rules read no file in one the
    work tree lacks, so their reload would not see one made there later."""

    __slots__ = ("_folders", "_paths")

    def __init__(self) -> None:
        self._paths: dict[str, bool] = {}
        self._folders: dict[str, int] = {}

    def clear(self) -> None:
        """Forget every verdict (the rules were read again)."""
        self._paths.clear()
        self._folders.clear()

    def judged(self, rules: Rules, rel_path: str, folder: str) -> bool:
        """Whether `rel_path` (in `folder`, "" = the root) passes the checks as written."""
        verdict = self._paths.get(rel_path)
        if verdict is None:
            verdict, lasting = self._decide(rules, rel_path, folder)
            if lasting:
                if len(self._paths) >= MAX_CACHED_VERDICTS:
                    self._paths.clear()
                self._paths[rel_path] = verdict
        return verdict

    def _decide(self, rules: Rules, rel_path: str, folder: str) -> tuple[bool, bool]:
        """(the verdict, whether it lasts); the folder is looked at before the rules are:
        one made meanwhile is read by them, and watched."""
        if unindexable(rel_path) is not None:
            return False, False  # refused by its text alone: cheap to judge again
        parts = as_written(rel_path)
        if parts is None:
            lasting = not folder or os.path.isdir(os.path.join(rules.root, folder))
            return decide(rules.root, rules.roots, rel_path, rules.is_ignored), lasting
        state = self._folders.get(folder)
        lasting = True
        if state is None:
            lasting = not folder or os.path.isdir(os.path.join(rules.root, folder))
            state = folder_state(rules.root, rules.roots, folder, rules.is_ignored)
            if lasting:
                if len(self._folders) >= MAX_CACHED_VERDICTS:
                    self._folders.clear()
                self._folders[folder] = state
        if state == SHOWN:
            return name_shown(folder, parts[-1], rules), lasting
        if state == EACH:
            return decide(rules.root, rules.roots, rel_path, rules.is_ignored), lasting
        return False, lasting


def as_written(rel_path: str) -> list[str] | None:
    """The parts of a path written as the index writes one (no empty or `.` part, not
    absolute), or None: such a path is normalised and judged by `decide`."""
    parts = rel_path.split("/")
    return None if "" in parts or "." in parts else parts


def folder_state(root: Path, roots: Sequence[Path], folder: str, is_ignored: IsIgnored) -> int:
    """`HIDDEN`, `SHOWN` or `EACH` for the files of `folder` ("" = the root), written as
    `as_written` accepts it: the checks of `decide` that depend on the folder alone."""
    parts = folder.split("/") if folder else []
    if ".." in parts or not INTERNAL_DIRS.isdisjoint(parts):
        return HIDDEN
    if folder and is_ignored(folder, is_dir=True):  # every folder above it too
        return HIDDEN
    absolute = root.joinpath(*parts)
    return SHOWN if any(absolute.is_relative_to(r) for r in roots) else EACH


def name_shown(folder: str, name: str, rules: Rules) -> bool:
    """Whether a file named `name` in a `SHOWN` folder passes (its path's text checked)."""
    if name == ".." or name in INTERNAL_DIRS:
        return False
    if rules.is_ignored_in is None:  # the rules on the whole path, the folder's again
        return not rules.is_ignored(f"{folder}/{name}" if folder else name)
    return not rules.is_ignored_in(folder, name, is_dir=False)


def decide(root: Path, roots: Sequence[Path], rel_path: str, is_ignored: IsIgnored) -> bool:
    """Every check on `rel_path` as written, normalised first, with no folder's verdict."""
    if unindexable(rel_path) is not None:
        return False  # a path no argument may name (too deep, `a%25b.md`): never shown
    path = PurePosixPath(rel_path)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return False
    if any(part in INTERNAL_DIRS for part in path.parts):
        return False
    absolute = root.joinpath(*path.parts)
    if not any(absolute.is_relative_to(r) for r in roots):
        return False
    return not is_ignored(path.as_posix())
