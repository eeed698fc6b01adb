"""`kenso-git connect --check CLIENT`: would the configured entry start and find the index?

The entry is read back from the client's file and started as the client would start it:
its command, args, cwd and env, from `/` with a minimal PATH (an editor launched from a
desktop menu has no virtualenv on PATH). The server must answer `initialize` and report a
usable index through `health_check`.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenso_git.connect.clients import SERVER_NAME
from kenso_git.connect.clients import ClientSpec
from kenso_git.connect.clients import load_json
from kenso_git.connect.clients import read_text
from kenso_git.errors import UsageError

MINIMAL_PATH = "/usr/bin:/bin"
START_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class CheckResult:
    ok: bool
    message: str
    hint: str | None = None  # the command that makes it work


def configured_entry(spec: ClientSpec, path: Path, fix: str) -> dict[str, Any]:
    """The kenso-git entry in the client's file; `fix` is the command that writes it
    (`connect.write_command`), named in the hint.

    Raises:
        UsageError: no file, no entry, or an entry without a command.
    """
    if not path.is_file():
        raise UsageError(
            f"no {spec.name} configuration file: it does not exist",
            path=str(path),
            hint=f"run `{fix}`",
        )
    text = read_text(path)
    if spec.fmt == "toml":
        try:
            data: dict[str, Any] = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise UsageError(f"{path} is not valid TOML: {err}", path=str(path)) from err
    else:
        data = load_json(text, path)[0]
    servers = data.get(spec.key)
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        raise UsageError(
            f"no {SERVER_NAME} entry under {spec.key!r}", path=str(path), hint=f"run `{fix}`"
        )
    return entry


def check_entry(entry: dict[str, Any], fix: str) -> CheckResult:
    """Start the entry like a client launched from `/` and ask the server for its health;
    `fix` is the command that writes a working entry (`connect.write_command`)."""
    import anyio

    try:
        return anyio.run(_check, entry, fix)
    except Exception as err:  # any failure to start or talk is the answer, not a crash
        return CheckResult(
            False,
            f"the entry does not start a working server: {_why(err)}",
            f"write it again for this installation: `{fix}`",
        )


def _why(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _why(err.exceptions[0])
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


async def _check(entry: dict[str, Any], fix: str) -> CheckResult:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {"PATH": MINIMAL_PATH, "HOME": os.environ.get("HOME", "/")}
    env.update({str(k): str(v) for k, v in (entry.get("env") or {}).items()})
    params = StdioServerParameters(
        command=entry["command"],
        args=[str(a) for a in entry.get("args") or []],
        cwd=entry.get("cwd") or "/",
        env=env,
    )
    with anyio.fail_after(START_TIMEOUT_S):
        async with Client(params) as client:
            result = await client.call_tool("health_check", {})
    text = "".join(getattr(part, "text", "") for part in result.content)
    health = json.loads(text)
    if result.is_error or not health.get("ok"):
        reason = health.get("reason") or health.get("error") or text
        return CheckResult(
            False,
            f"the server starts but cannot serve: {reason}",
            _serve_hint(entry, health, fix),
        )
    return CheckResult(
        True,
        f"the entry starts kenso-git {health.get('version')} and finds the index "
        f"({health.get('documents')} document{'' if health.get('documents') == 1 else 's'})",
    )


def _serve_hint(entry: dict[str, Any], health: dict[str, Any], fix: str) -> str | None:
    """What to run when the server started but has no usable index: an ingest of the
    repository the entry serves (its `--root`), from any folder, or a new entry when it
    names no repository."""
    args = [str(a) for a in entry.get("args") or []]
    root = args[args.index("--root") + 1] if "--root" in args[:-1] else None
    if root is None:
        return f"the entry names no repository (--root): write it again with `{fix}`"
    if health.get("index") == "missing":
        return f"build the index once: `kenso-git ingest {root}`"
    return None  # the reason says what is wrong with the index there
