"""Ctrl-C of git ends a hook that is waiting for the index (issue #14, finding 5): the
terminal sends SIGINT to the whole foreground group, the hook among them."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import runner as hooks
from tests.gitrepo import git
from tests.gitrepo import write
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import hook_env


def _sleeping(pid: int) -> bool:
    """Whether the process is in a timed sleep (SQLite's busy wait sleeps in nanosleep)."""
    try:
        return "nanosleep" in Path(f"/proc/{pid}/wchan").read_text(encoding="ascii")
    except OSError:
        return False


def _interrupt_a_waiting_hook(root: Path, moved: list[str]) -> subprocess.Popen[str] | None:
    """A hook started while another program holds SQLite's write lock, sent SIGINT once it
    sleeps waiting; None if it was done before it could be caught waiting."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kenso_git", "hook", "post-checkout", *moved, "1"],
        cwd=root,
        env=hook_env(),
        stderr=subprocess.PIPE,
        text=True,
        # a background job inherits SIGINT ignored; a terminal's foreground group does not
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    seen = False  # read once: the hook wakes between its sleeps, so a second read may differ
    while not seen and proc.poll() is None and time.monotonic() < deadline:
        seen = _sleeping(proc.pid)
        if not seen:
            time.sleep(0.002)
    if proc.poll() is not None:
        proc.communicate()
        return None
    if not seen:  # never leave the hook running for the tests after this one
        proc.kill()
        proc.communicate()
        pytest.fail("the hook never waited")
    os.kill(proc.pid, signal.SIGINT)
    return proc


def test_ctrl_c_ends_a_hook_waiting_for_the_database(indexed: Path) -> None:
    if not Path(f"/proc/{os.getpid()}/wchan").exists():
        pytest.skip("no /proc/PID/wchan to see the hook wait")
    write(indexed, {"docs/d1.md": f"# Doc 1\n\nDoc 1 now {BODY}"})
    git(indexed, "commit", "-q", "-am", "edit")
    moved = git(indexed, "rev-parse", "HEAD~1", "HEAD").split()
    shell = sqlite3.connect(indexed / ".kenso" / "docs.db", isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")  # SQLite's write lock, not kenso-git's
    try:
        for _attempt in range(5):  # a loaded machine may let the 1 s wait pass unseen
            proc = _interrupt_a_waiting_hook(indexed, moved)
            if proc is not None:
                break
        else:
            pytest.fail("the hook was never caught waiting")
        # Before the fix the hook sat in SQLite's busy handler for 60 s, past this bound.
        _out, err = proc.communicate(timeout=30)
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    assert proc.returncode == 0, err  # a hook never fails git, even interrupted
    assert "interrupted" in err, err
    assert hooks.wait_until_idle(find_workspace(indexed), timeout=60)
