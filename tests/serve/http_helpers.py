"""Start `kenso-git serve --transport http` as a real process and talk to it."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.serve.conftest import KENSO_EXE


@dataclass(frozen=True)
class HttpServer:
    root: Path
    port: int
    token: str
    pid: int = 0  # the server process

    def rss_mb(self) -> float:
        """The server process's resident set size in MB (Linux /proc)."""
        with open(f"/proc/{self.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS line in /proc/<pid>/status")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@contextlib.contextmanager
def isolated_git_home(factory: pytest.TempPathFactory) -> Iterator[None]:
    """A module-wide HOME with its own git identity and no system config (the per-test
    fixture in tests/conftest.py cannot serve module-scoped servers)."""
    home = factory.mktemp("home")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = kenso test\n\temail = test@example.invalid\n", encoding="utf-8"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        yield


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(extra or {})
    return env


@contextlib.contextmanager
def running_http_server(
    root: Path,
    *,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    stop_timeout: float = 15,
) -> Iterator[HttpServer]:
    """Start the server, wait for an authorised /health (bounded polling), stop it after
    (killed when it has not ended `stop_timeout` seconds after SIGTERM)."""
    port = free_port()
    cmd = [str(KENSO_EXE), "serve", "--port", str(port), *args]
    if "KENSO_TRANSPORT" not in (env or {}):
        cmd[2:2] = ["--transport", "http"]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errfile:
        proc = subprocess.Popen(cmd, cwd=root, env=server_env(env), stdout=errfile, stderr=errfile)
        try:
            server = _wait_ready(root, port, proc, errfile)
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)


def _wait_ready(
    root: Path, port: int, proc: subprocess.Popen[bytes], errfile: object
) -> HttpServer:
    token_path = root / ".kenso" / "http.token"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            errfile.seek(0)  # type: ignore[attr-defined]
            raise AssertionError(f"server exited early: {errfile.read()}")  # type: ignore[attr-defined]
        if token_path.is_file():
            token = token_path.read_text(encoding="utf-8").strip()
            server = HttpServer(root, port, token, proc.pid)
            with contextlib.suppress(httpx.HTTPError):
                if (
                    httpx.get(f"{server.base}/health", headers=server.auth(), timeout=2).status_code
                    == 200
                ):
                    return server
        time.sleep(0.1)
    raise AssertionError("the HTTP server did not answer /health within 30 s")
