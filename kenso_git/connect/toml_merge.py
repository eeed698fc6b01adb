"""Merge our server entry into a Codex `config.toml`, keeping every other byte of it.

tomlkit edits the parsed document in place and writes back the user's comments, order and
layout, including servers declared as inline tables (`mcp_servers = { a = {...} }`), which
a line-based edit cannot extend, and entries written as dotted keys
(`mcp_servers.kenso-git.command = ...`), edited where they stand.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items
from tomlkit.container import OutOfOrderTableProxy

from kenso_git.errors import UsageError

PASTE = "or add the entry printed above by hand"  # the CLI prints it before the error
# `key.a = ...` lines beside a `key.b = { ... }` table, or an entry of several dotted keys,
# make one table spread over the file: tomlkit hands a proxy over its parts, edited as one
TABLES = (tomlkit.items.Table, tomlkit.items.InlineTable, OutOfOrderTableProxy)


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
            hint=f"fix the file, {PASTE}",
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
    if not isinstance(servers, TABLES):
        raise _not_a_table(current, path, key, None)
    old: Any = servers.get(name)
    if old is None:
        fresh = tomlkit.inline_table() if isinstance(servers, tomlkit.items.InlineTable) else None
        table = fresh if fresh is not None else tomlkit.table()
        table.update(entry)
        servers[name] = table
    elif isinstance(old, TABLES):
        for field in ours:
            if field in old and field not in entry:
                del old[field]
        for field, value in entry.items():
            old[field] = value
    else:
        raise _not_a_table(current, path, key, name)
    merged = tomlkit.dumps(doc)
    _check_placed(merged, path, key, name, entry, ours)
    return merged


def _not_a_table(current: str, path: Path, key: str, name: str | None) -> UsageError:
    """The error for `key` (or `key.name`) holding a value where a table belongs, naming
    the line that sets it."""
    dotted = key if name is None else f"{key}.{name}"
    last = re.escape(name if name is not None else key)
    # the line assigning it: `key = `, `key.name = `, `name = ` under `[key]`, `{ name = `
    assigns = re.compile(rf'(?:^|[\s.{{,])"?{last}"?\s*=')
    line = next((n for n, text in enumerate(current.splitlines(), 1) if assigns.search(text)), None)
    return UsageError(
        f"`{dotted}` in {path} is not a table",
        path=str(path),
        line=line,
        hint=f"make it a table (`[{dotted}]`) or remove it, and run the command again, {PASTE}",
    )


def _check_placed(
    merged: str, path: Path, key: str, name: str, entry: dict[str, object], ours: Sequence[str]
) -> None:
    """Refuse a merge whose text does not read back with the entry in place, and none of
    our keys it drops (a user entry's old `cwd`): a layout tomlkit could not edit in place
    is then left as it is."""
    try:
        placed = tomllib.loads(merged).get(key, {}).get(name, {})
    except (tomllib.TOMLDecodeError, AttributeError):
        placed = None
    if (
        not isinstance(placed, dict)
        or any(placed.get(k) != v for k, v in entry.items())
        or any(k in placed for k in ours if k not in entry)
    ):
        raise UsageError(
            f"the `{key}.{name}` entry cannot be written into {path} as its tables are laid "
            "out: left as it is",
            path=str(path),
            hint=f"fix the layout by hand, {PASTE}",
        )
