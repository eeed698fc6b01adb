"""Merge our server entry into a Codex `config.toml`, keeping every other byte of it.

tomlkit edits the parsed document in place and writes back the user's comments, order and
layout, including servers declared as inline tables (`mcp_servers = { a = {...} }`), which
a line-based edit cannot extend.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items
from tomlkit.container import OutOfOrderTableProxy

from kenso_git.errors import UsageError


def toml_block(key: str, name: str, entry: dict[str, object]) -> str:
    """The `[key.name]` table to paste by hand."""
    lines = [f"[{key}.{name}]"]
    lines += [f"{field} = {json.dumps(value)}" for field, value in entry.items()]
    return "\n".join(lines) + "\n"


def _parse(text: str, path: Path) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as err:
        raise UsageError(
            f"{path} is not valid TOML: {err}",
            path=str(path),
            line=getattr(err, "line", None),
            hint="fix the file, or paste the printed entry by hand",
        ) from err


def merge_toml(
    current: str,
    path: Path,
    key: str,
    name: str,
    entry: dict[str, object],
    ours: Sequence[str],
) -> str:
    """`current` with `[key.name]` set to `entry`; the entry's other keys are kept.

    Raises:
        UsageError: the file is not TOML, or `key` / `key.name` is not a table.
    """
    doc = _parse(current, path)
    servers: Any = doc.get(key)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc[key] = servers
    # `key.a = ...` lines beside a `key.b = { ... }` table make one table spread over the
    # file: tomlkit hands a proxy over its parts, edited as a table
    tables = (tomlkit.items.Table, tomlkit.items.InlineTable, OutOfOrderTableProxy)
    if not isinstance(servers, tables):
        raise UsageError(f"`{key}` in {path} is not a table", path=str(path))
    old: Any = servers.get(name)
    if old is None:
        fresh = tomlkit.inline_table() if isinstance(servers, tomlkit.items.InlineTable) else None
        table = fresh if fresh is not None else tomlkit.table()
        table.update(entry)
        servers[name] = table
    elif isinstance(old, tomlkit.items.Table | tomlkit.items.InlineTable):
        for field in ours:
            if field in old and field not in entry:
                del old[field]
        for field, value in entry.items():
            old[field] = value
    else:
        raise UsageError(f"`{key}.{name}` in {path} is not a table", path=str(path))
    merged = tomlkit.dumps(doc)
    _check_placed(merged, path, key, name, entry)
    return merged


def _check_placed(merged: str, path: Path, key: str, name: str, entry: dict[str, object]) -> None:
    """Refuse a merge whose text does not read back with the entry in place (a layout of
    dotted keys tomlkit could not edit in place): the file is then left as it is."""
    try:
        placed = tomllib.loads(merged).get(key, {}).get(name, {})
    except (tomllib.TOMLDecodeError, AttributeError):
        placed = None
    if not isinstance(placed, dict) or any(placed.get(k) != v for k, v in entry.items()):
        raise UsageError(
            f"the `{key}.{name}` entry cannot be written into {path} as its tables are laid "
            "out: left as it is",
            path=str(path),
            hint="paste the printed entry by hand",
        )
