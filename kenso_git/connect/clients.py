"""Client configuration entries for `kenso-git connect CLIENT [--write] [--global]`.

Each supported MCP client keeps its servers in a JSON or TOML file, per project and per
user. The entry must survive however the client is launched (from a desktop menu, with no
virtualenv on PATH, in another folder): the command is this installation's absolute script
path. A project file's entry names its repository as `--root` (and as `cwd` where the
client reads one). A user file's entry (`--global`) is for every project, so it names none:
the server serves the repository the client has open, the folder the client starts it in
(Claude Code, Codex, Gemini CLI) or the `${workspaceFolder}` the client fills in (Cursor,
VS Code). `plan` computes the entry and the merged file; `write` saves it atomically after
keeping the original (never overwritten by a later write) beside it, as editors do: a
project file's as `<name>.kenso-git.bak`, which `info/exclude` hides from git (#26: a `.bak`
git saw was picked up by `git add -A`), a user file's as `<name>.bak`. Never under `.kenso/`,
which the docs' `rm -rf .kenso` recovery deletes; one kept there by an earlier version is
moved beside the file on the next write. The backup is written whole or not at all (a full
disk); one an earlier version's failed copy left empty or cut short is replaced, as it holds
no original. Only our entry changes, and only
its command, args, cwd and type: other servers, the user's keys (env, timeout, trust...)
and the rest of a TOML file's text are kept.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from pathlib import PurePosixPath

from kenso_git.api.workspace import find_script
from kenso_git.api.workspace import script_command
from kenso_git.errors import UsageError

SERVER_NAME = "kenso-git"
FOLDER_VARIABLE = "${workspaceFolder}"  # Cursor and VS Code fill in the folder open


@dataclass(frozen=True, slots=True)
class ClientSpec:
    """Where one MCP client keeps its servers, what its entries may hold, and how a user
    entry (which names no repository) finds the project."""

    name: str
    project: str  # relative to the repository root
    user: str  # relative to home (`--global`)
    fmt: str  # "json" or "toml"
    key: str  # the table holding the servers
    has_cwd: bool  # the client starts the server in the entry's `cwd`
    fills_folder: bool  # the client fills `${workspaceFolder}` in with the folder open
    finds_project: str  # how the server of a user entry comes to serve the project


CLIENTS: dict[str, ClientSpec] = {
    "claude-code": ClientSpec(
        "claude-code",
        ".mcp.json",
        ".claude.json",
        "json",
        "mcpServers",
        False,
        False,
        "Claude Code starts it in the folder you run `claude` in",
    ),
    "cursor": ClientSpec(
        "cursor",
        ".cursor/mcp.json",
        ".cursor/mcp.json",
        "json",
        "mcpServers",
        False,
        True,
        "Cursor fills it in with the folder open in the window",
    ),
    "vscode": ClientSpec(
        "vscode",
        ".vscode/mcp.json",
        ".config/Code/User/mcp.json",
        "json",
        "servers",
        False,
        True,
        "VS Code fills it in with the folder open in the window",
    ),
    "codex": ClientSpec(
        "codex",
        ".codex/config.toml",
        ".codex/config.toml",
        "toml",
        "mcp_servers",
        True,
        False,
        "Codex starts it in the folder it works in (where you run `codex`, or --cd)",
    ),
    "gemini": ClientSpec(
        "gemini",
        ".gemini/settings.json",
        ".gemini/settings.json",
        "json",
        "mcpServers",
        True,
        False,
        "Gemini CLI starts it in the folder you run `gemini` in",
    ),
}
OUR_KEYS = ("type", "command", "args", "cwd")  # what a rewrite may change in our entry


@dataclass(frozen=True, slots=True)
class Entry:
    """The entry for one client, where it goes, and its text to paste by hand."""

    client: ClientSpec
    path: Path
    entry: dict[str, object]
    snippet: str


@dataclass(frozen=True, slots=True)
class ConnectPlan:
    """The entry for one client and the file content after merging it."""

    client: ClientSpec
    path: Path
    entry: dict[str, object]
    snippet: str  # what to paste by hand
    merged: str | None  # the whole file with our entry merged in; None: leave it alone
    exists: bool
    why_untouched: str = ""  # set when `merged` is None
    project_root: Path | None = None  # the repository, for a project file (not --global)


def server_command() -> str:
    """The absolute path of this installation's `kenso-git` script (PATH-independent)."""
    return find_script() or script_command()


def server_entry(spec: ClientSpec, command: str, root: Path | None) -> dict[str, object]:
    """The server entry a client needs to start `kenso-git serve` over stdio: for `root`,
    or, without one (a user entry), for the project the client has open."""
    if root is not None:
        entry: dict[str, object] = {"command": command, "args": ["serve", "--root", str(root)]}
        if spec.has_cwd:
            entry["cwd"] = str(root)
    elif spec.fills_folder:
        entry = {"command": command, "args": ["serve", "--root", FOLDER_VARIABLE]}
    else:  # started in the project's folder, the server finds the repository around it
        entry = {"command": command, "args": ["serve"]}
    if spec.name == "vscode":
        entry = {"type": "stdio", **entry}
    return entry


def user_entry_note(spec: ClientSpec) -> str:
    """How a user entry comes to serve the project the client has open, and its limit."""
    if spec.fills_folder:
        return (
            f"the entry names the repository as {FOLDER_VARIABLE}: {spec.finds_project} "
            "(a window with no folder open has no repository to serve); each repository "
            "needs `kenso-git ingest` once"
        )
    return (
        f"the entry names no repository: {spec.finds_project}, and it serves the "
        "repository around that folder; each repository needs `kenso-git ingest` once"
    )


def config_path(spec: ClientSpec, root: Path, home: Path, *, user: bool) -> Path:
    """The client's project file under `root`, or its user file under `home`."""
    return home / spec.user if user else root / spec.project


def client_spec(client: str) -> ClientSpec:
    """The spec of `client`.

    Raises:
        UsageError: unknown client.
    """
    spec = CLIENTS.get(client)
    if spec is None:
        raise UsageError(
            f"unknown client {client!r}", hint=f"choose one of: {', '.join(sorted(CLIENTS))}"
        )
    return spec


def entry_for(
    client: str, root: Path, home: Path, command: str | None = None, *, user: bool = False
) -> Entry:
    """The entry for `client` (for `root`, or with `user` for every project) and its file;
    the file itself is not read.

    Raises:
        UsageError: unknown client, or a project file reached through a symbolic link.
    """
    spec = client_spec(client)
    path = config_path(spec, root, home, user=user)
    if not user:
        refuse_links(spec, root)
    entry = server_entry(spec, command or server_command(), None if user else root)
    if spec.fmt == "json":
        snippet = json.dumps({spec.key: {SERVER_NAME: entry}}, indent=2) + "\n"
    else:
        from kenso_git.connect.toml_merge import toml_block

        snippet = toml_block(spec.key, SERVER_NAME, entry)
    return Entry(spec, path, entry, snippet)


def plan(
    client: str, root: Path, home: Path, command: str | None = None, *, user: bool = False
) -> ConnectPlan:
    """Compute the entry for `client` and the merged configuration file.

    Raises:
        UsageError: unknown client, or the existing file cannot be read or merged safely.
    """
    shown = entry_for(client, root, home, command, user=user)
    spec, path, entry = shown.client, shown.path, shown.entry
    exists = path.is_file()
    current = read_text(path) if exists else ""
    if spec.fmt == "json":
        from kenso_git.connect.json_merge import merge_json

        merged, why = merge_json(current, path, spec.key, SERVER_NAME, entry, OUR_KEYS)
    else:
        from kenso_git.connect.toml_merge import merge_toml

        merged, why = merge_toml(current, path, spec.key, SERVER_NAME, entry, OUR_KEYS), ""
    project = None if user else root
    return ConnectPlan(spec, path, entry, shown.snippet, merged, exists, why, project)


PROJECT_BACKUP = ".kenso-git.bak"  # a project file's original, beside it (git-ignored)
LEGACY_BACKUP_DIR = ".kenso/backup"  # where earlier versions kept it: `rm -rf .kenso` lost it


def backup_path(path: Path, project_root: Path | None = None) -> Path:
    """Where the original of `path` is kept, beside it: `<name>.bak` for a user file,
    `<name>.kenso-git.bak` for a project file (`project_root` given), which git is told to
    ignore."""
    if project_root is None:
        return path.with_name(path.name + ".bak")
    return path.with_name(path.name + PROJECT_BACKUP)


def _legacy_backup(path: Path, project_root: Path) -> Path:
    return project_root / LEGACY_BACKUP_DIR / f"{path.relative_to(project_root).as_posix()}.bak"


def write_command(client: str, *, user: bool, root: Path | None = None) -> str:
    """The command that writes `client`'s entry: `--global` for the user file, `--root`
    when the repository is not the current folder's."""
    flags = " --global" if user else ""
    where = f" --root {root}" if root is not None else ""
    return f"kenso-git connect {client} --write{flags}{where}"


def is_current(p: ConnectPlan) -> bool:
    """Whether the file already holds exactly what a write would put there."""
    if p.merged is None or not p.exists:
        return False
    try:
        with open(p.path, encoding="utf-8", newline="") as handle:
            return handle.read() == p.merged
    except (OSError, UnicodeDecodeError):
        return False


def write(p: ConnectPlan) -> Path | None:
    """Save the merged file atomically; return the backup when this write created it."""
    if p.merged is None:
        raise UsageError(p.why_untouched, path=str(p.path), hint="paste the entry printed above")
    kept = backup_path(p.path, p.project_root)
    moved = False
    if p.project_root is not None:  # again: the tree may have changed since
        refuse_links(p.client, p.project_root, backup=True)
    if _cut_short(kept, p):
        kept.unlink()  # what a failed copy of an earlier version left: no original in it
    if p.project_root is not None:
        moved = _move_legacy_backup(p.path, p.project_root, kept)
    first = p.exists and not kept.exists()  # the first backup is the original: kept for good
    # a user file kept as a link (dotfiles linked into ~ by stow or chezmoi) is written where
    # it lives: replacing the link would leave the dotfiles without the entry, and no link
    dest = p.path.resolve() if p.project_root is None and p.path.is_symlink() else p.path
    dest.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    if first:
        if p.project_root is not None:
            _hide_from_git(p.project_root, kept)
        backup = kept
        _save_original(p.path, backup)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as err:
        if dest == p.path:
            raise
        raise UsageError(
            f"{p.path} leads to {dest}, whose folder cannot be written ({err.strerror})",
            path=str(p.path),
            hint="add the entry printed above where that file is managed",
        ) from err
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(p.merged)
            handle.flush()
            os.fsync(handle.fileno())
        if p.exists:
            shutil.copymode(dest, tmp)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return kept if moved else backup


def _save_original(path: Path, kept: Path) -> None:
    """Copy `path` to `kept` (its mode and times too) through a file renamed into place once
    on disk: a copy that fails (a full disk) leaves no backup, never an empty or partial one,
    which every later write would keep as "the original"."""
    fd, tmp = tempfile.mkstemp(prefix=f".{kept.name}.", suffix=".tmp", dir=kept.parent)
    try:
        with os.fdopen(fd, "wb") as out, path.open("rb") as source:
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
        shutil.copystat(path, tmp)
        os.replace(tmp, kept)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cut_short(kept: Path, p: ConnectPlan) -> bool:
    return (
        p.exists
        and kept.is_file()
        and not kept.is_symlink()
        and not _holds_original(kept, p.path, p.client)
    )


def _holds_original(kept: Path, path: Path, spec: ClientSpec) -> bool:
    """Whether the backup `kept` holds a whole original of `path`. Not when an earlier
    version's copy failed part way (a full disk) and left it empty while the file holds
    more than our entry (an empty original gives a file of our entry alone), or cut short:
    a strict beginning of the file that does not parse where the file does. (A TOML
    original is a beginning of the file our entry was appended to: it parses.)"""
    try:
        saved, now = kept.read_bytes(), path.read_bytes()
    except OSError:
        return True  # not known: kept, as ever
    if len(saved) >= len(now) or not now.startswith(saved):
        return True
    if saved == b"":
        return _ours_alone(_parsed(now, spec.fmt), spec.key)
    return _parsed(saved, spec.fmt) is not None or _parsed(now, spec.fmt) is None


def _ours_alone(data: object, key: str) -> bool:
    """Whether `data` is what our write makes of an empty file: our entry alone (or nothing)."""
    if data == {}:
        return True
    if not isinstance(data, dict) or list(data) != [key]:
        return False
    servers = data[key]
    return isinstance(servers, dict) and list(servers) == [SERVER_NAME]


def _parsed(data: bytes, fmt: str) -> object:
    """The file's data (None: it does not parse as `fmt`)."""
    try:
        text = data.decode("utf-8")
        if fmt == "json":
            from kenso_git.connect.jsonc import loads

            return loads(text)[0]
        import tomllib

        return tomllib.loads(text)
    except (UnicodeDecodeError, ValueError):  # JSONDecodeError and TOMLDecodeError too
        return None


def _hide_from_git(root: Path, kept: Path) -> None:
    """Tell git to ignore a project file's backup (`info/exclude`), as ingest does `.kenso/`."""
    from kenso_git.api.workspace import exclude_from_git
    from kenso_git.api.workspace import find_workspace

    workspace = find_workspace(root)
    if workspace.is_git and kept.is_relative_to(workspace.root):
        exclude_from_git(
            workspace,
            f"/{kept.relative_to(workspace.root).as_posix()}",
            "# kenso-git: the originals `kenso-git connect --write` replaced",
        )


def _move_legacy_backup(path: Path, root: Path, kept: Path) -> bool:
    """An original an earlier version kept under `.kenso/backup/` goes beside the file (and
    the folders it leaves empty, up to `.kenso/backup/`, go); True when it was moved."""
    legacy = _legacy_backup(path, root)
    if kept.exists() or not legacy.is_file():
        return False
    rel = legacy.relative_to(root).parts
    if any(root.joinpath(*rel[: i + 1]).is_symlink() for i in range(len(rel))):
        return False  # a planted link: never copied from (it may lead to a secret file)
    _hide_from_git(root, kept)
    shutil.copy2(legacy, kept)
    legacy.unlink()
    top = root / LEGACY_BACKUP_DIR
    folder = legacy.parent
    while folder.is_relative_to(top):
        try:
            folder.rmdir()  # only an empty one: another client's original stays
        except OSError:
            break
        folder = folder.parent
    return True


def refuse_links(spec: ClientSpec, root: Path, *, backup: bool = False) -> None:
    """Refuse a project file reached through a symbolic link: the file itself, a folder
    on its way (`.cursor -> ~/.cursor`) or, when one is to be written (`backup`), the
    backup beside it (`.mcp.json.kenso-git.bak`). A branch can commit such a link, and
    following it would copy a secret file into the work tree, rewrite the user's global
    configuration (#27) or put a copy wherever the link leads.

    Raises:
        UsageError: a component of the project file's path (or of its backup) is a link.
    """
    parts = PurePosixPath(spec.project).parts
    folders = [root.joinpath(*parts[: i + 1]) for i in range(len(parts) - 1)]
    file = root.joinpath(*parts)
    backups = [backup_path(file, root)] if backup else []
    for path in (*folders, file, *backups):
        if path.is_symlink():
            rel = path.relative_to(root).as_posix()
            raise UsageError(
                f"{rel} is a symbolic link (to {os.readlink(path)}): kenso-git never "
                "follows a link for a project file",
                path=str(path),
                hint="a branch may have planted it to read or rewrite a file outside the "
                f"repository: remove the link (`rm {rel}`) and run the command again, or "
                "write your user file with --global",
            )


def read_text(path: Path) -> str:
    """The file's text, a leading BOM included (callers keep it when they write back).

    Raises:
        UsageError: the file cannot be read or is not UTF-8.
    """
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}", path=str(path)) from err
