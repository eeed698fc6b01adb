"""Hooks folders kenso-git writes nothing into: husky's, and the repository's own (a
`core.hooksPath` folder of hooks committed with the code).

Shims there would change the team's hooks for everyone (and husky 9 makes its `_` folder
again), so `hooks install` prints, file by file, the line to add, and `hooks status` says of
each hook whether its file runs kenso-git and whether git runs that file at all: husky 9
runs `.husky/NAME` from a wrapper it makes in `.husky/_` for a fixed list of hooks, which
has no post-index-change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kenso_git.triggers.githooks.state import HookFile
from kenso_git.triggers.githooks.state import HookState
from kenso_git.triggers.githooks.state import classify
from kenso_git.triggers.githooks.state import read_text

HUSKY = "husky"
REPOSITORY = "the repository"  # owner of a tracked hooks folder (core.hooksPath)
OWNERS = (HUSKY, REPOSITORY)

# The files are committed: whoever has no kenso-git must see nothing (husky runs them with
# `sh -e` and reports a command that failed or was not found).
_LINE = 'command -v kenso-git >/dev/null 2>&1 && kenso-git hook {name} "$@" || true'
# post-index-change fires at every write of git's index (`git add`): only a work-tree update
# (first argument 1) starts kenso-git, as in the shim.
_INDEX_LINE = '[ "$1" = 1 ] && ' + _LINE


def hook_line(name: str) -> str:
    """The line that runs kenso-git's hook `name` from another tool's hook file."""
    return (_INDEX_LINE if name == "post-index-change" else _LINE).format(name=name)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where git runs the hooks from and where the hook files to edit are."""

    runs: Path  # core.hooksPath
    scripts: Path  # the hook files a user edits
    # husky 9: git runs husky's wrapper `runs/NAME`, which runs `scripts/NAME` with `sh -e`
    # (executable or not); otherwise git runs `scripts/NAME` itself, if executable
    wrapped: bool


def layout_of(owner: str, folder: Path) -> Layout:
    """The layout of the hooks folder `folder` that `owner` keeps."""
    if owner == HUSKY and (folder.name == "_" or (folder / "h").is_file()):
        return Layout(folder, folder.parent, wrapped=True)
    return Layout(folder, folder, wrapped=False)


def _runs_kenso(text: str, name: str) -> bool:
    call = re.compile(rf"kenso-git\s+hook\s+{re.escape(name)}(?![\w-])")
    return any(call.search(line) for line in text.splitlines() if not line.lstrip().startswith("#"))


def owned_file(layout: Layout, name: str) -> HookFile:
    """Hook `name` in a folder kenso-git writes nothing into: its file, and whether it
    runs kenso-git and git runs it."""
    script = layout.scripts / name
    if layout.wrapped and not (layout.runs / name).is_file():
        return HookFile(name, script, HookState.NOT_RUN, chained=False)
    state = classify(script, name)
    if state == HookState.FOREIGN and _runs_kenso(read_text(script) or "", name):
        runnable = layout.wrapped or os.access(script, os.X_OK)
        state = HookState.WIRED if runnable else HookState.NOT_EXECUTABLE
    return HookFile(name, script, state, chained=False)


def not_run(owner: str, name: str, runs: str) -> str:
    """Why hook `name` never runs, and what covers for it."""
    return (
        f"{owner} runs no {name} hook ({runs} has no {name}, and {owner} makes none): "
        "the next search or tool call notices what it would have synced"
    )


def advice(
    owner: str, layout: Layout, hooks: Sequence[HookFile], shown: Callable[[Path], str]
) -> tuple[str | None, tuple[str, ...]]:
    """(the lines to add, file by file, or None when none is left to add; a note for each
    hook git never runs there)."""
    todo = [h for h in hooks if h.state in (HookState.FOREIGN, HookState.MISSING)]
    skipped = [h for h in hooks if h.state == HookState.NOT_EXECUTABLE]
    notes = tuple(
        not_run(owner, h.name, shown(layout.runs)) for h in hooks if h.state == HookState.NOT_RUN
    )
    if not todo and not skipped:
        return None, notes
    where = f"{owner}'s hook files" if owner == HUSKY else "the repository's hook files"
    lines = [
        f"{owner} keeps the hooks git runs (core.hooksPath {shown(layout.runs)}): kenso-git "
        f"wrote nothing there. Add each line below to the file it names ({where}) and commit "
        "it for everyone; it does nothing where kenso-git is not installed:"
    ]
    lines += [f"  {shown(h.path)}:  {hook_line(h.name)}" for h in todo]
    new = [shown(h.path) for h in todo if h.state == HookState.MISSING]
    if new:
        executable = "" if layout.wrapped else ", and make them executable (chmod +x)"
        lines.append(f"  (new files: {', '.join(new)}; start each with #!/bin/sh{executable})")
    lines += [
        f"  {shown(h.path)}: chmod +x {shown(h.path)}  (git skips a hook file not executable)"
        for h in skipped
    ]
    return "\n".join(lines), notes
