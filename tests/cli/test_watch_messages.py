"""A watcher that cannot sync (its index read-only) says so once: `kenso-git watch` printed
the reason twice (`kenso-git: the watcher could not sync: ...` in the log, then `cannot
sync: ...`), and the log repeated it at each second's poll."""

from __future__ import annotations

import gc
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.triggers.watcher import Watcher
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write
from tests.store.test_read_only_folder import read_only

WAIT_S = 60.0


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    """An indexed repository with an edit the index has not seen."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "alphaword here. " * 8)})
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    write(root, {"docs/b.md": doc("Beta", "betaword here. " * 8)})
    return root


def test_watch_says_once_that_it_cannot_sync(edited: Path) -> None:
    with read_only(edited / ".kenso"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "kenso_git", "watch", "--poll"],
            cwd=edited,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline()]
            while lines[-1] and not lines[-1].startswith("cannot sync:"):
                lines.append(proc.stdout.readline())
            assert "read-only" in lines[-1], lines
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert "cannot sync" not in out
    assert "could not sync" not in err and "read-only" not in err, err


def test_the_log_says_a_failure_once_not_at_every_poll(
    edited: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with read_only(edited / ".kenso"):
        kb = KnowledgeBase.open(edited)
        watcher = Watcher(kb, poll_only=True, poll_s=0.01)
        try:
            with caplog.at_level(logging.WARNING, logger="kenso_git.watch"):
                watcher.start()
                status = watcher.wait_until(lambda st: st.checks >= 5, WAIT_S)
                watcher.stop()
        finally:
            watcher.stop()
            kb.close()
            del watcher, kb
            gc.collect()  # the watcher thread's connection, or the folder cannot be unmounted
    assert status.ok is False and status.reason is not None and "read-only" in status.reason
    said = [r.getMessage() for r in caplog.records if "could not sync" in r.getMessage()]
    assert len(said) == 1, said
