"""Raw JSON-RPC messages shared by the MCP tests that talk to the server by hand."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.serve.conftest import KENSO_EXE

_KEEP = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH", "PYTHONPATH")

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def tool_call(request_id: int, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def server_env(**extra: str) -> dict[str, str]:
    """The environment a test's server runs with: the caller's git and Python settings."""
    return {**{k: os.environ[k] for k in _KEEP if k in os.environ}, **extra}


def spawn_stdio(root: Path, **env: str) -> subprocess.Popen[str]:
    """`kenso-git serve --no-watch` over stdio in `root`, its pipes open (text)."""
    return subprocess.Popen(
        [str(KENSO_EXE), "serve", "--no-watch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,
        env=server_env(**env),
    )


def end_stdio(proc: subprocess.Popen[str], timeout: float) -> None:
    """Close a stdio server's input, as a client that ends does, and wait for it to exit."""
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=timeout)
    if proc.stdout is not None:
        proc.stdout.close()


def send(proc: subprocess.Popen[str], message: dict[str, object]) -> None:
    """Write one JSON-RPC message to a stdio server, a line of its own."""
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def answer(proc: subprocess.Popen[str], number: int) -> dict[str, Any]:
    """The server's answer to request `number`, read past any notifications before it."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its output"
        message = json.loads(line)
        if message.get("id") == number:
            return message  # type: ignore[no-any-return]
