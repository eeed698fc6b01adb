"""SIGTERM, SIGINT and SIGHUP end a server at once, and it cleans up after itself.

With KENSO_MCP_SDK=1 the SDK's stdio server read stdin in anyio's worker threads: after a
tool call, SIGTERM left the interpreter waiting at exit for the read of the client's next
line, and SIGINT's cancellation waited for it too, so the server ran on while its client
kept stdin open (the SDK-free loop exits 143 and 130). The SDK-free loop, blocked reading
stdin in its main thread, could miss a signal the kernel gave another thread (its handler
waited for the client's next line). SIGHUP (the terminal closed) killed every server,
HTTP too, without its cleanup, leaving the index copies made for calls with `ref`. Each
case is a real `kenso-git serve` process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import running_http_server
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import send
from tests.serve.rpc import server_env
from tests.serve.rpc import tool_call

SERVERS = {"fast": {}, "sdk": {"KENSO_MCP_SDK": "1"}}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _start(root: Path, server: str, *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [str(KENSO_EXE), "serve", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,
        env=server_env(**SERVERS[server]),
    )
    assert _request(proc, INIT)["result"]["serverInfo"]["name"] == "kenso-git"
    send(proc, INITIALIZED)
    return proc


def _request(proc: subprocess.Popen[str], message: dict[str, object]) -> dict[str, object]:
    assert proc.stdout is not None
    send(proc, message)
    while True:
        line = proc.stdout.readline()  # the test's timeout bounds a silent server
        assert line, "the server closed its output"
        answer: dict[str, object] = json.loads(line)
        if answer.get("id") == message["id"]:
            return answer


def _ended(proc: subprocess.Popen[str]) -> int:
    """The exit code of `proc` (killed, and the test failed, when it does not end)."""
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the server did not end")
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()


def _copies(root: Path) -> list[Path]:
    """The index copies the server made for calls with `ref` (api/revision.py)."""
    folder = root / ".kenso" / "revisions"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["term", "int"]
)
@pytest.mark.parametrize("called", [False, True], ids=["before-a-call", "after-a-call"])
@pytest.mark.parametrize("server", list(SERVERS))
def test_a_signal_ends_the_server_while_its_client_keeps_stdin_open(
    repo: Path, server: str, called: bool, sig: signal.Signals, code: int
) -> None:
    proc = _start(repo, server)
    if called:
        answer = _request(proc, tool_call(2, "search_docs", {"query": "deploy"}))
        assert "result" in answer, answer
    proc.send_signal(sig)
    assert _ended(proc) == code


@pytest.mark.parametrize("server", list(SERVERS))
def test_sighup_ends_the_server_and_removes_its_revision_copies(repo: Path, server: str) -> None:
    proc = _start(repo, server)
    answer = _request(proc, tool_call(2, "search_docs", {"query": "deploy", "ref": "HEAD"}))
    assert "result" in answer and not answer["result"]["isError"], answer  # type: ignore[index]
    assert _copies(repo), "the call with ref made no copy to look for"
    proc.send_signal(signal.SIGHUP)
    assert _ended(proc) == 128 + signal.SIGTERM
    assert _copies(repo) == []


def _state(pid: int) -> str:
    """The process's state letter (Linux /proc): Z once it has exited (not yet reaped)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_sighup_ends_the_http_server_and_removes_its_revision_copies(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = make_repo(tmp_path_factory.mktemp("hangup") / "repo")
    ingest(root)
    with running_http_server(root) as server, httpx.Client(timeout=30) as client:
        headers = {**MCP_HEADERS, **server.auth()}
        opened = client.post(server.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = INIT["params"]["protocolVersion"]  # type: ignore[index]
        client.post(server.url, json=INITIALIZED, headers=headers)
        call = tool_call(2, "search_docs", {"query": "deploy", "ref": "HEAD"})
        answer = client.post(server.url, json=call, headers=headers).json()
        assert not answer["result"]["isError"], answer
        assert _copies(root), "the call with ref made no copy to look for"
        os.kill(server.pid, signal.SIGHUP)
        while _state(server.pid) != "Z":  # the test's timeout bounds a server that stays
            time.sleep(0.05)
        assert _copies(root) == []
