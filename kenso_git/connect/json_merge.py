"""Read a client's JSON (or JSONC) file and merge our server entry into it.

Only our entry changes, and only its command, args, cwd and type: other servers and the
user's keys in ours (env, timeout, trust...) are kept. A file with comments or trailing
commas (JSONC) cannot be written back with them (`json.dumps` drops them): it is left as it
is unless it already holds the entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kenso_git.connect import jsonc
from kenso_git.errors import UsageError

PASTE = "or add the entry printed above by hand"  # the CLI prints it before the error


def load_json(current: str, path: Path, hint: str) -> tuple[dict[str, Any], bool]:
    """The JSON object in `current` (JSONC allowed) and whether it needed JSONC; `hint`
    says what to do when the file is not one.

    Raises:
        UsageError: not JSON, or not an object.
    """
    if not current.strip(jsonc.BOM + " \t\r\n"):
        return {}, False
    try:
        data, is_jsonc = jsonc.loads(current)
    except json.JSONDecodeError as err:
        raise UsageError(
            f"{path} is not valid JSON ({err.msg} at line {err.lineno})",
            path=str(path),
            line=err.lineno,
            hint=hint,
        ) from err
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object", path=str(path), hint=hint)
    return data, is_jsonc


def merge_json(
    current: str, path: Path, key: str, name: str, entry: dict[str, object], ours: tuple[str, ...]
) -> tuple[str | None, str]:
    """`current` with `key.name` set to `entry` (its other keys kept), and "", or None and
    why the file is left as it is (JSONC, a number JSON cannot hold).

    Raises:
        UsageError: the file is not a JSON object, or `key` in it is not an object.
    """
    data, is_jsonc = load_json(current, path, f"fix the file, {PASTE}")
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise UsageError(
            f'"{key}" in {path} is not an object',
            path=str(path),
            hint=f'make "{key}" an object ({{}}) and run the command again, {PASTE}',
        )
    old = servers.get(name)
    kept = {k: v for k, v in old.items() if k not in ours} if isinstance(old, dict) else {}
    new_entry = {**entry, **kept}
    if is_jsonc:
        if isinstance(old, dict) and all(old.get(k) == v for k, v in entry.items()):
            return current, ""  # already configured: nothing to change, nothing lost
        why = f"{path} has comments or trailing commas (JSONC): left untouched to keep them"
        return None, why
    data[key] = {**servers, name: new_entry}
    bom = jsonc.BOM if current.startswith(jsonc.BOM) else ""
    text = _dumps(data)
    if text is None:
        why = (
            f"{path} holds a number out of JSON's range (such as 1e400) or NaN: left "
            "untouched, as writing it back would give `Infinity`, which clients cannot read"
        )
        return None, why
    return bom + text + "\n", ""


def _dumps(data: dict[str, Any]) -> str | None:
    """`data` as the file's new text, valid JSON any client reads back the same; None when
    it holds a number JSON cannot (`1e400` is read as infinity: written back, `Infinity`,
    which no client's JSON reader accepts)."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate its file wrote as `\ud800`: kept escaped
        text = json.dumps(data, indent=2, ensure_ascii=True, allow_nan=False)
    return text
