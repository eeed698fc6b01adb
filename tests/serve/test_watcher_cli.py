"""`kenso-git watch` (#16): the watcher in the foreground, a JSON line per sync, Ctrl-C ends it."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import server_env

WAIT_S = 20.0


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return out


def _next(lines: queue.Queue[str], event: str) -> dict[str, Any]:
    while True:
        item: dict[str, Any] = json.loads(lines.get(timeout=WAIT_S))
        if item["event"] == event:
            return item


@pytest.mark.parametrize("mode", [(), ("--poll",)], ids=["events", "poll"])
def test_watch_logs_each_sync_and_stops_on_ctrl_c(repo: Path, mode: tuple[str, ...]) -> None:
    with subprocess.Popen(
        [str(KENSO_EXE), "watch", "--json", *mode],
        cwd=repo,
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job inherits SIGINT ignored, and Python then never raises
        # KeyboardInterrupt: give the child the disposition a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as proc:
        try:
            lines = _lines(proc)
            assert _next(lines, "watching")["root"] == str(repo)
            temp = repo / "docs" / ".billing.md.tmp"
            temp.write_text(
                "# Billing\n\nThe ocelot invoice is the word here, long enough.\n", "utf-8"
            )
            os.replace(temp, repo / "docs" / "billing.md")
            synced = _next(lines, "sync")
            assert synced["changed"] == 1 and synced["ms"] >= 0
            proc.send_signal(signal.SIGINT)
            assert _next(lines, "stopped")["syncs"] >= 1
            assert proc.wait(timeout=WAIT_S) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=WAIT_S)
        assert proc.stderr is not None
        assert "Traceback" not in proc.stderr.read()
    search = subprocess.run(
        [str(KENSO_EXE), "search", "--no-sync", "ocelot"],
        cwd=repo,
        env=server_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert "docs/billing.md" in search.stdout


def test_watch_without_an_index_says_what_to_do(tmp_path: Path) -> None:
    from tests.helpers import init_repo

    root = init_repo(tmp_path / "bare", {"docs/a.md": "# A\n\nSome text.\n"})
    done = subprocess.run(
        [str(KENSO_EXE), "watch"],
        cwd=root,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 3
    assert "kenso-git ingest" in done.stderr
    assert not (root / ".kenso" / "docs.db").exists()
