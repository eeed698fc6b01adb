"""Client configuration entries for `kenso-git connect CLIENT [--write]`.

Each supported MCP client keeps its servers in a JSON or TOML file. `plan` computes the
entry and the merged file; `write` saves it atomically (temp file + `os.replace`) after
copying the old file to `<name>.bak`. Only our entry changes: other servers, keys and (for
TOML) the rest of the text are kept as they were.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kenso_git.errors import UsageError
from kenso_git.repo.executable import script_command

SERVER_NAME = "kenso-git"


@dataclass(frozen=True, slots=True)
class ClientSpec:
    """Where one MCP client keeps its servers."""

    name: str
    relpath: str  # relative to the repository root, or to home when `in_home`
    in_home: bool
    fmt: str  # "json" or "toml"
    key: str  # the table holding the servers


CLIENTS: dict[str, ClientSpec] = {
    "claude-code": ClientSpec("claude-code", ".mcp.json", False, "json", "mcpServers"),
    "cursor": ClientSpec("cursor", ".cursor/mcp.json", False, "json", "mcpServers"),
    "vscode": ClientSpec("vscode", ".vscode/mcp.json", False, "json", "servers"),
    "codex": ClientSpec("codex", ".codex/config.toml", True, "toml", "mcp_servers"),
    "gemini": ClientSpec("gemini", ".gemini/settings.json", True, "json", "mcpServers"),
}


@dataclass(frozen=True, slots=True)
class ConnectPlan:
    """The entry for one client and the file content after merging it."""

    client: ClientSpec
    path: Path
    entry: dict[str, object]
    snippet: str  # what to paste by hand
    merged: str  # the whole file with our entry merged in
    exists: bool


def server_command() -> str:
    """`kenso-git` when it is on PATH, else the absolute path of this installation's script."""
    return script_command()


def server_entry(spec: ClientSpec, command: str) -> dict[str, object]:
    """The server entry a client needs to start `kenso-git serve` over stdio."""
    entry: dict[str, object] = {"command": command, "args": ["serve"]}
    if spec.name == "vscode":
        entry = {"type": "stdio", **entry}
    return entry


def plan(client: str, root: Path, home: Path, command: str | None = None) -> ConnectPlan:
    """Compute the entry for `client` and the merged configuration file.

    Raises:
        UsageError: unknown client, or the existing file cannot be merged safely.
    """
    spec = CLIENTS.get(client)
    if spec is None:
        raise UsageError(
            f"unknown client {client!r}", hint=f"choose one of: {', '.join(sorted(CLIENTS))}"
        )
    path = (home if spec.in_home else root) / spec.relpath
    entry = server_entry(spec, command or server_command())
    exists = path.is_file()
    current = _read(path) if exists else ""
    if spec.fmt == "json":
        snippet = json.dumps({spec.key: {SERVER_NAME: entry}}, indent=2) + "\n"
        merged = _merge_json(current, path, spec.key, entry)
    else:
        snippet = _toml_block(spec.key, entry)
        merged = _merge_toml(current, path, spec.key, entry)
    return ConnectPlan(spec, path, entry, snippet, merged, exists)


def write(p: ConnectPlan) -> Path | None:
    """Save the merged file atomically; return the backup path when an old file existed."""
    p.path.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    if p.exists:
        backup = p.path.with_name(p.path.name + ".bak")
        shutil.copy2(p.path, backup)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.path.name}.", suffix=".tmp", dir=p.path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(p.merged)
            handle.flush()
            os.fsync(handle.fileno())
        if p.exists:
            shutil.copymode(p.path, tmp)
        os.replace(tmp, p.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}", path=str(path)) from err


def _merge_json(current: str, path: Path, key: str, entry: dict[str, object]) -> str:
    data: object = {}
    if current.strip():
        try:
            data = json.loads(current)
        except json.JSONDecodeError as err:
            raise UsageError(
                f"{path} is not plain JSON ({err.msg} at line {err.lineno})",
                path=str(path),
                hint="fix or remove comments, or paste the printed entry by hand",
            ) from err
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object", path=str(path))
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise UsageError(f'"{key}" in {path} is not an object', path=str(path))
    data[key] = {**servers, SERVER_NAME: entry}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_HEADER = re.compile(r"^\s*\[\s*(?P<name>[^\[\]]+?)\s*\]\s*(#.*)?$")


def _toml_block(key: str, entry: dict[str, object]) -> str:
    lines = [f"[{key}.{SERVER_NAME}]"]
    lines += [f"{name} = {json.dumps(value)}" for name, value in entry.items()]
    return "\n".join(lines) + "\n"


def _is_ours(header: str, key: str) -> bool:
    parts = [p.strip().strip("\"'") for p in header.split(".")]
    return len(parts) >= 2 and parts[0] == key and parts[1] == SERVER_NAME


def _merge_toml(current: str, path: Path, key: str, entry: dict[str, object]) -> str:
    if current.strip():
        _parse_toml(current, path)
    kept: list[str] = []
    skipping = False
    insert_at: int | None = None
    for line in current.splitlines(keepends=True):
        match = _HEADER.match(line)
        if match and not line.lstrip().startswith("[["):
            skipping = _is_ours(match.group("name"), key)
            if skipping and insert_at is None:
                insert_at = len(kept)
        if not skipping:
            kept.append(line)
    block = _toml_block(key, entry)
    if insert_at is None:
        text = "".join(kept)
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        merged = f"{text}{sep}{block}"
    else:
        merged = "".join(kept[:insert_at]) + block + "\n" + "".join(kept[insert_at:])
    parsed = _parse_toml(merged, path)
    table = parsed.get(key)
    if not isinstance(table, dict) or table.get(SERVER_NAME) != entry:
        raise UsageError(
            f"cannot merge the {SERVER_NAME} entry into {path} safely",
            path=str(path),
            hint="paste the printed entry by hand",
        )
    return merged


def _parse_toml(text: str, path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UsageError(
            f"{path} is not valid TOML: {err}",
            path=str(path),
            hint="fix the file, or paste the printed entry by hand",
        ) from err
