"""Merge our server entry into a Codex `config.toml`, keeping every other byte of it.

tomlkit edits the parsed document in place and writes back the user's comments, order and
layout, including servers declared as inline tables (`mcp_servers = { a = {...} }`), which
a line-based edit cannot extend.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

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
    if not isinstance(servers, tomlkit.items.Table | tomlkit.items.InlineTable):
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
    return tomlkit.dumps(doc)
