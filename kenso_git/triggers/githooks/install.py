"""Install, uninstall and inspect the git hook shims that keep the index fresh.

The shims (rendered from one template by `kenso_git.triggers.githooks.shim`, and kept
rendered in the top-level `hooks/` folder) go into the hooks folder git really uses
(`git rev-parse --git-path hooks`). A hook that is already there (a user's, git-lfs's) is
renamed `<name>.kenso-chained` and still runs from the shim; uninstall puts it back. Folders
and files owned by husky, lefthook or pre-commit, and hooks folders the repository tracks,
are left alone: we return the snippet to add to that tool's configuration instead
(`triggers.githooks.owned` for husky's and the repository's hook files).
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from kenso_git.api.git import hooks_dir
from kenso_git.api.git import hooks_path_setting
from kenso_git.api.git import tracks_files_in
from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import find_script as default_executable
from kenso_git.errors import GitError
from kenso_git.triggers.githooks.owned import HUSKY
from kenso_git.triggers.githooks.owned import OWNERS
from kenso_git.triggers.githooks.owned import REPOSITORY
from kenso_git.triggers.githooks.owned import advice
from kenso_git.triggers.githooks.owned import layout_of
from kenso_git.triggers.githooks.owned import owned_file
from kenso_git.triggers.githooks.shim import HOOK_NAMES
from kenso_git.triggers.githooks.shim import RETIRED_HOOKS
from kenso_git.triggers.githooks.shim import render
from kenso_git.triggers.githooks.state import EXE_LINE
from kenso_git.triggers.githooks.state import MARKER
from kenso_git.triggers.githooks.state import HookFile
from kenso_git.triggers.githooks.state import HookState
from kenso_git.triggers.githooks.state import classify
from kenso_git.triggers.githooks.state import read_text as _read

CHAIN_SUFFIX = ".kenso-chained"
PREVIOUS_SUFFIX = ".kenso-previous"  # a replaced shim that was not this version's
LEFTHOOK_CONFIGS = ("lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml")


@dataclass(frozen=True, slots=True)
class HookReport:
    """The outcome of install / uninstall / status over the hooks."""

    hooks_dir: Path
    hooks: tuple[HookFile, ...]
    changed: tuple[str, ...]  # one line per file we wrote, moved or removed
    owner: str | None = None  # "husky" / "lefthook" / "pre-commit" / REPOSITORY: we kept out
    snippet: str | None = None  # what to add to that tool's configuration instead
    notes: tuple[str, ...] = ()  # hooks git never runs there, and what covers for them


def rendered_shim(name: str, exe: str | None) -> str:
    """The shim text with the executable recorded at install time."""
    text = render(name)
    if exe:
        text = text.replace(EXE_LINE, f"KENSO_GIT_EXE={shlex.quote(exe)}", 1)
    return text


def _owner_of_folder(ws: Workspace, folder: Path) -> str | None:
    setting = hooks_path_setting(ws)
    if setting is not None:
        parts = set(folder.parts) | set(Path(setting).parts)
        if ".husky" in parts or any(
            (where / "husky.sh").exists() for where in (folder, folder / "_")
        ):
            return HUSKY
        husky_h = _read(folder / "h")
        if husky_h is not None and "husky" in husky_h:
            return HUSKY
    if any((ws.root / name).is_file() for name in LEFTHOOK_CONFIGS):
        return "lefthook"
    if setting is not None and tracks_files_in(ws, folder):
        return REPOSITORY  # the team's hooks, committed: ours would change them for everyone
    return None


def hook_files(ws: Workspace) -> tuple[Path, tuple[HookFile, ...]]:
    """The hooks folder and the state of each of our five hooks in it."""
    folder = hooks_dir(ws)
    files = []
    for name in HOOK_NAMES:
        path = folder / name
        state = classify(path, name)
        chained = (folder / f"{name}{CHAIN_SUFFIX}").exists()
        files.append(HookFile(name=name, path=path, state=state, chained=chained))
    return folder, tuple(files)


PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
REINDEX_MARKERS = ("kenso-reindex", "hook pre-commit-framework")
REINDEX_STAGES = ("post-checkout", "post-merge", "post-rewrite")


def pre_commit_runs_reindex(ws: Workspace) -> bool:
    """Whether `.pre-commit-config.yaml` configures the kenso-reindex hook (comments aside)."""
    text = _read(ws.root / PRE_COMMIT_CONFIG)
    if text is None:
        return False
    lines = (line.split("#", 1)[0] for line in text.splitlines())
    return any(marker in line for line in lines for marker in REINDEX_MARKERS)


def status(ws: Workspace) -> HookReport:
    """What is installed where (the index's freshness is the caller's to add)."""
    folder, files = hook_files(ws)
    owner = _owner_of_folder(ws, folder)
    if owner in OWNERS:
        return _owned(ws, folder, owner)
    return HookReport(hooks_dir=folder, hooks=files, changed=(), owner=owner)


def _owned(ws: Workspace, folder: Path, owner: str) -> HookReport:
    """A folder husky or the repository keeps: nothing written; each hook's file, whether it
    runs kenso-git, and the lines still to add."""
    layout = layout_of(owner, folder)
    files = tuple(owned_file(layout, name) for name in HOOK_NAMES)
    snippet, notes = advice(owner, layout, files, lambda path: _shown(ws, path))
    return HookReport(folder, files, (), owner, snippet, notes)


def install(ws: Workspace, *, exe: str | None = None) -> HookReport:
    """Install the five shims; idempotent. Existing hooks are chained, never clobbered.

    Raises:
        GitError: not a git work tree, or the hooks folder cannot be written.
    """
    exe = exe if exe is not None else default_executable()
    folder, files = hook_files(ws)
    owner = _owner_of_folder(ws, folder)
    if owner in OWNERS:
        return _owned(ws, folder, owner)
    if owner is None and any(f.state == HookState.LEFTHOOK for f in files):
        owner = "lefthook"
    if owner is not None:
        return HookReport(folder, files, (), owner, snippet_for(owner, ws, folder))
    changed: list[str] = []
    skipped_pre_commit = False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for hook in files:
            if hook.state == HookState.PRE_COMMIT:
                skipped_pre_commit = True
                continue
            line = _install_one(folder, hook, rendered_shim(hook.name, exe))
            if line:
                changed.append(line)
        changed.extend(_retire(folder, "no longer needed: the next read records a commit"))
    except OSError as err:
        raise GitError(
            f"cannot write git hooks in {folder}: {err}",
            hint="check the folder's permissions, or set core.hooksPath to a writable folder",
        ) from err
    _, after = hook_files(ws)
    if skipped_pre_commit:
        return HookReport(
            folder, after, tuple(changed), "pre-commit", snippet_for("pre-commit", ws, folder)
        )
    return HookReport(folder, after, tuple(changed))


def _install_one(folder: Path, hook: HookFile, text: str) -> str | None:
    if hook.state == HookState.INSTALLED and _read(hook.path) == text:
        return None
    chained = folder / f"{hook.name}{CHAIN_SUFFIX}"
    note = "updated" if hook.state in (HookState.INSTALLED, HookState.OUTDATED) else "installed"
    if hook.state == HookState.FOREIGN:
        if chained.exists() or chained.is_symlink():
            raise OSError(f"{hook.path} is not ours and {chained.name} already exists")
        os.replace(hook.path, chained)
        note = f"installed (the existing hook now runs from it as {chained.name})"
    kept = _keep_previous(folder, hook)
    tmp = folder / f".{hook.name}.kenso-tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, hook.path)
    return f"{hook.name}: {note}{kept}"


def _keep_previous(folder: Path, hook: HookFile) -> str:
    """A shim of ours that is not this version's (an older version's, or one edited by
    hand: the two cannot be told apart) is copied to `<name>.kenso-previous` before it is
    replaced or removed, so lines added to it are never lost; the note saying so, or ""."""
    if hook.state != HookState.OUTDATED:
        return ""
    previous = folder / f"{hook.name}{PREVIOUS_SUFFIX}"
    shutil.copyfile(hook.path, previous)
    return f" (the shim there was not this version's: kept as {previous.name})"


def _retire(folder: Path, why: str) -> list[str]:
    """Remove our shims of hooks this version no longer installs (an older version's set),
    putting back the hook each chained to; anyone else's hook of that name stays."""
    changed = []
    for name in RETIRED_HOOKS:
        path = folder / name
        if MARKER not in (_read(path) or ""):
            continue
        chained = folder / f"{name}{CHAIN_SUFFIX}"
        if chained.exists() or chained.is_symlink():
            os.replace(chained, path)
            changed.append(f"{name}: removed ({why}), the previous hook restored")
        else:
            path.unlink()
            changed.append(f"{name}: removed ({why})")
    return changed


def uninstall(ws: Workspace) -> HookReport:
    """Remove our shims and put back the hooks they chained to, exactly as they were.

    Raises:
        GitError: not a git work tree, or a file cannot be moved.
    """
    folder, files = hook_files(ws)
    changed: list[str] = []
    try:
        for hook in files:
            chained = folder / f"{hook.name}{CHAIN_SUFFIX}"
            if hook.state not in (HookState.INSTALLED, HookState.OUTDATED):
                continue
            kept = _keep_previous(folder, hook)
            if hook.chained:
                os.replace(chained, hook.path)
                changed.append(f"{hook.name}: removed, the previous hook restored{kept}")
            else:
                hook.path.unlink()
                changed.append(f"{hook.name}: removed{kept}")
        changed.extend(_retire(folder, "installed by an older kenso-git"))
    except OSError as err:
        raise GitError(
            f"cannot remove git hooks in {folder}: {err}", hint="check the folder's permissions"
        ) from err
    _, after = hook_files(ws)
    return HookReport(folder, after, tuple(changed))


def _shown(ws: Workspace, folder: Path) -> str:
    try:
        return folder.relative_to(ws.root).as_posix()
    except ValueError:
        return str(folder)


def snippet_for(owner: str, ws: Workspace, folder: Path) -> str:
    """What to add to lefthook or pre-commit so they call kenso-git's hooks (for husky's and
    the repository's hook files, `owned.advice` says it file by file)."""
    if owner == "lefthook":
        lines = ["lefthook manages the git hooks; add this to lefthook.yml:"]
        for name in HOOK_NAMES:
            lines += [
                f"{name}:",
                "  commands:",
                "    kenso-git:",
                f"      run: kenso-git hook {name} {{0}}",
            ]
        return "\n".join(lines)
    stages = "[post-checkout, post-merge, post-rewrite]"
    return "\n".join(
        [
            "pre-commit manages the git hooks; add this to .pre-commit-config.yaml:",
            "-   repo: local",
            "    hooks:",
            "    -   id: kenso-reindex",
            "        name: kenso-git reindex",
            "        entry: kenso-git hook pre-commit-framework",
            "        language: system",
            "        always_run: true",
            "        pass_filenames: false",
            f"        stages: {stages}",
            "then run: pre-commit install --hook-type post-checkout --hook-type post-merge "
            "--hook-type post-rewrite",
        ]
    )
