"""What a batch of file-system events asks the watcher to do (`serve.watcher`).

A changed Markdown file is synced by path; a folder event (its files fire nothing), a moved
HEAD or branch, and an edited ignore or config file ask for a comparison of the whole scope
(the latter two after the rules are re-read); the index's own folder is never looked at.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path

from kenso_git.api.workspace import DB_DIRNAME
from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import is_markdown

# Files whose edit changes what the scope is: re-read the rules, then compare everything.
RULE_FILES = frozenset({".gitignore", ".cursorignore", ".kensoignore", ".kenso.toml"})
CONFIG_FILES = frozenset({"pyproject.toml", ".kenso.toml"})
# Names an editor saves through; a vanished one was never a folder of docs.
_TEMP_SUFFIXES = (".tmp", "~", ".swp", ".swx", ".bak")


class Batch:
    """What one batch of events asks for."""

    __slots__ = ("full", "paths", "reason", "rules")

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.full = False
        self.rules = False
        self.reason = "events"

    def want_full(self, reason: str) -> None:
        self.full = True
        self.reason = reason


def classify(
    absolute: Iterable[str], ws: Workspace, db_dir: str, was_folder: Callable[[str], bool]
) -> Batch:
    """What a batch of changed absolute paths asks for; `was_folder(rel)`: a vanished path
    held indexed docs."""
    batch = Batch()
    for path in absolute:
        if path == db_dir or path.startswith(db_dir + os.sep):
            continue  # our own writes
        git_rel = _git_file(path, ws.git_dir, ws.common_dir)
        if git_rel is not None:
            if git_rel == "info/exclude":
                batch.rules = True
                batch.want_full("rules")
            elif git_rel in ("HEAD", "packed-refs") or git_rel.startswith("refs/heads/"):
                batch.want_full("head")
            continue
        rel = _relative(path, ws.root)
        if rel is None or rel.split("/", 1)[0] == DB_DIRNAME:
            continue
        name = rel.rsplit("/", 1)[-1]
        if name in RULE_FILES or (name in CONFIG_FILES and "/" not in rel):
            batch.rules = True
            batch.want_full("rules")
        elif is_markdown(name):
            batch.paths.add(rel)
        elif os.path.isdir(path) or (not os.path.lexists(path) and was_folder(rel)):
            batch.want_full("folder")  # a folder moved or deleted: its files fire nothing
    return batch


def is_temporary(rel: str) -> bool:
    """An editor's temporary file (`.x.md.tmp`, `x.md~`...): never a folder of docs."""
    return rel.endswith(_TEMP_SUFFIXES) or ".md." in rel.lower()


def _relative(path: str, root: Path) -> str | None:
    base = str(root)
    if not path.startswith(base + os.sep):
        return None
    return path[len(base) + 1 :].replace(os.sep, "/")


def _git_file(path: str, git_dir: Path | None, common_dir: Path | None) -> str | None:
    """`path` relative to the git dir (or the common dir) it lies in; None outside both."""
    for folder in (git_dir, common_dir):
        if folder is None:
            continue
        rel = _relative(path, folder)
        if rel is not None:
            return rel
    return None
