"""A `.kenso.toml` edited while the server runs is applied by the next tool call.

The SDK-free stdio loop starts its watcher with its first answer, and the watcher sees only
the edits made after its file events are armed: `agent-scoped-roots` narrowed right after the
server started (or a `git switch` to a branch whose config does) was never applied, and the
server served, searched and counted the folders left out for its whole life. Without a
watcher (`--no-watch`) neither server applied it. Each case is a real `kenso-git serve`
process spoken to in raw JSON-RPC lines on stdin.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import KENSO_EXE
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import server_env
from tests.serve.rpc import tool_call


class _Stdio:
    """A `kenso-git serve` process over stdio, one request at a time."""

    def __init__(self, root: Path, *args: str, **env: str) -> None:
        self.proc = subprocess.Popen(
            [str(KENSO_EXE), "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=root,
            env=server_env(**env),
        )
        self.ident = 1
        assert self.request(INIT)["result"]["serverInfo"]["name"] == "kenso-git"
        self.send(INITIALIZED)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdout is not None
        self.send(message)
        while True:
            line = self.proc.stdout.readline()  # the test's timeout bounds a silent server
            assert line, "the server closed its output"
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == message["id"]:
                return answer

    def call(self, tool: str, arguments: dict[str, object]) -> tuple[bool, Any]:
        """Whether the call failed, and its JSON answer."""
        self.ident += 1
        result = self.request(tool_call(self.ident, tool, arguments))["result"]
        return bool(result["isError"]), json.loads(result["content"][0]["text"])

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()


SERVERS = {
    "fast": ((), {}),  # the watcher starts with the first answer
    "fast-no-watch": (("--no-watch",), {}),
    "sdk-no-watch": (("--no-watch",), {"KENSO_MCP_SDK": "1"}),
}


@pytest.mark.parametrize("server", list(SERVERS))
def test_a_scope_narrowed_before_the_first_call_is_applied_by_it(repo: Path, server: str) -> None:
    args, env = SERVERS[server]
    stdio = _Stdio(repo, *args, **env)
    try:
        (repo / ".kenso.toml").write_text('agent-scoped-roots = ["docs"]\n', encoding="utf-8")
        failed, body = stdio.call("get_doc", {"path": "private/plan.md"})
        assert failed, body
        assert body["rule"] == "outside-scope", body
        failed, hits = stdio.call("search_docs", {"query": "payment roadmap"})
        assert not failed, hits
        assert all(h["file_path"].startswith("docs/") for h in hits), hits
        failed, state = stdio.call("index_state", {})
        assert not failed, state
        assert state["scoped_roots"] == ["docs"], state
        failed, body = stdio.call("get_doc", {"path": "docs/deploy.md"})
        assert not failed, body
    finally:
        stdio.close()


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
def test_a_malformed_config_edit_keeps_the_rules_until_it_is_fixed(repo: Path, sdk: bool) -> None:
    stdio = _Stdio(repo, "--no-watch", **({"KENSO_MCP_SDK": "1"} if sdk else {}))
    try:
        config = repo / ".kenso.toml"
        config.write_text('agent-scoped-roots = ["docs"\n', encoding="utf-8")  # not TOML
        failed, body = stdio.call("get_doc", {"path": "private/plan.md"})
        assert not failed, body  # the rules read at start stay
        config.write_text('agent-scoped-roots = ["docs"]\n', encoding="utf-8")
        failed, body = stdio.call("get_doc", {"path": "private/plan.md"})
        assert failed, body
        assert body["rule"] == "outside-scope", body
    finally:
        stdio.close()
