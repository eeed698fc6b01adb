"""The folders and files a command names (`ingest docs/`, `lint guide/a.md`), as the
root-relative scope it runs on."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kenso_git.config import Settings
from kenso_git.errors import UsageError
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.workspace import Workspace


def scope_folders(ws: Workspace, targets: Sequence[Path]) -> list[str]:
    """Root-relative POSIX forms of `targets` ("" = the whole root).

    Raises:
        UsageError: a target does not exist or lies outside the root.
    """
    out: list[str] = []
    for target in targets:
        real = Path(os.path.realpath(target))  # Path.resolve raises RuntimeError on a loop
        if not real.exists():
            raise UsageError(f"path does not exist: {target}", hint="check the spelling")
        if not real.is_relative_to(ws.root):
            raise UsageError(
                f"path is outside the work tree {ws.root}: {target}",
                hint="run kenso-git from inside the repository that holds the docs",
            )
        out.append(real.relative_to(ws.root).as_posix() if real != ws.root else "")
    return sorted(set(out)) or [""]


def index_scope(ws: Workspace, settings: Settings, targets: Sequence[Path] | None) -> list[str]:
    """`scope_folders(ws, targets)` for an ingest, which indexes exactly that scope.

    Raises:
        UsageError: a target does not exist, lies outside the root, or is kept out by the
            ignore rules: an ingest of it would index nothing there and drop every other
            page.
    """
    scope = scope_folders(ws, targets) if targets else [""]
    rules = IgnoreRules.for_workspace(ws, settings)
    ignored = [i for i in scope if i and rules.is_ignored(i, is_dir=(ws.root / i).is_dir())]
    if ignored:
        raise UsageError(
            f"{', '.join(ignored)}: ignored by .gitignore, .cursorignore, .kensoignore or "
            "`exclude`, so there is nothing to index there; the index was left as it was",
            hint="name a folder whose docs are indexed (`git check-ignore -v PATH` names a "
            "git rule)",
        )
    return scope
