"""`kenso-git lsp` answers every request: one whose params do not fit the method's shape got
no response at all (pygls popped "Error in server: Invalid Params" up instead, and the
client's request hung), and a code action for a document the editor never opened answered
with a Python traceback. Sent as raw JSON-RPC over a real process's stdio, since a typed
client cannot send malformed params."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lsp.client import WAIT

PAGE = "# Guide For The Install\n\nSee [setup](setup.md) for the steps of the install here.\n"


class RawSession:
    """`kenso-git lsp` in a subprocess, spoken to in bytes."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kenso_git", "lsp"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.kept: list[dict[str, Any]] = []  # received, not yet asked for
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                header = out.readline()
                if not header:
                    return
                if not header.strip():
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None
            self.received.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def until_answered(self, msg_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The response to `msg_id` (answers may come in any order), and the requests and
        notifications the server sent before it."""
        while True:
            for at, message in enumerate(self.kept):
                if message.get("id") == msg_id and "method" not in message:
                    del self.kept[at]
                    return message, [m for m in self.kept[:at] if "method" in m]
            self.kept.append(self.received.get(timeout=WAIT))

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)  # it ends at the end of the output
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def _text_document(root: Path, rel: str) -> dict[str, str]:
    return {"uri": (root / rel).as_uri()}


HERE = {"line": 0, "character": 0}


def _started(repo: Path) -> RawSession:
    write(repo, {"docs/guide.md": PAGE})
    commit_all(repo, "docs")
    session = RawSession(repo)
    session.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": repo.as_uri(), "capabilities": {}},
        }
    )
    session.until_answered(1)
    session.send({"method": "initialized", "params": {}})
    return session


def _still_serving(session: RawSession) -> None:
    session.send({"id": 99, "method": "shutdown"})
    assert "error" not in session.until_answered(99)[0]


def test_a_request_with_bad_params_gets_invalid_params_for_its_id(repo: Path) -> None:
    session = _started(repo)
    try:
        requests: dict[int, tuple[str, Any]] = {
            2: ("textDocument/codeAction", {}),
            3: ("textDocument/hover", {}),
            4: ("textDocument/hover", "not an object"),
            5: ("textDocument/codeAction", {"textDocument": {"uri": 5}, "range": {}}),
            6: ("textDocument/hover", {"textDocument": _text_document(repo, "docs/guide.md")}),
        }
        for msg_id, (method, params) in requests.items():
            session.send({"id": msg_id, "method": method, "params": params})
        session.send({"id": 7, "method": "textDocument/hover"})  # no params at all
        shown: list[dict[str, Any]] = []
        said: dict[int, str] = {}
        for msg_id in (2, 3, 4, 5, 6, 7):
            answer, before = session.until_answered(msg_id)
            shown += [m for m in before if m.get("method") == "window/showMessage"]
            assert "result" not in answer, answer
            assert answer["error"]["code"] == -32602, answer  # Invalid params, for this id
            assert "data" not in answer["error"], answer  # no traceback
            said[msg_id] = answer["error"]["message"]
        assert said[2] == (
            "invalid params for textDocument/codeAction: params.textDocument missing; "
            "params.range missing; params.context missing"
        )
        assert said[6] == "invalid params for textDocument/hover: params.position missing"
        assert said[7] == "invalid params for textDocument/hover: params missing"
        assert shown == []  # answered, so no popup besides
        _still_serving(session)
    finally:
        session.close()


def test_a_document_the_editor_never_opened_gets_no_actions_and_no_traceback(
    repo: Path,
) -> None:
    session = _started(repo)
    try:
        nowhere = {"start": HERE, "end": HERE}
        unknown = {"uri": "file:///nope.md"}
        for msg_id, document in ((2, unknown), (3, _text_document(repo, "docs/guide.md"))):
            params = {"textDocument": document, "range": nowhere, "context": {"diagnostics": []}}
            session.send({"id": msg_id, "method": "textDocument/codeAction", "params": params})
        session.send(
            {
                "id": 4,
                "method": "textDocument/hover",
                "params": {"textDocument": unknown, "position": HERE},
            }
        )
        assert session.until_answered(2)[0].get("result") == []
        assert session.until_answered(3)[0].get("result") == []
        assert session.until_answered(4)[0].get("result", "an error") is None
        _still_serving(session)
    finally:
        session.close()
