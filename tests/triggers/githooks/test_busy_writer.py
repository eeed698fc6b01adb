"""A writer that holds the database without kenso-git's write lock (an old kenso-git, a
sqlite3 shell) must not hold git for SQLite's busy timeout (issue #14, item 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import runner as hooks
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import connect_raw
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import is_stale


def test_a_foreign_writer_sends_the_hook_sync_to_the_background(
    indexed: Path, tmp_path: Path
) -> None:
    write(indexed, {"docs/d1.md": f"# Doc 1\n\nDoc 1 now {BODY}"})
    git(indexed, "commit", "-q", "-am", "edit")
    moved = git(indexed, "rev-parse", "HEAD~1", "HEAD").split()
    shell = connect_raw(indexed / ".kenso" / "docs.db", isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")  # SQLite's write lock, not kenso-git's
    try:
        # Bounded: the hook used to sit in SQLite's busy handler for 60 s, past this bound.
        proc = subprocess.run(
            # a commit fires no sync (#16); post-checkout's arguments for the move it made
            [sys.executable, "-m", "kenso_git", "hook", "post-checkout", *moved, "1"],
            cwd=indexed,
            env=hook_env(),
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
        assert proc.returncode == 0
        assert "another program is writing the index database" in proc.stderr
        assert is_stale(indexed)  # nothing was written yet
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    assert hooks.wait_until_idle(find_workspace(indexed), timeout=60)
    assert is_stale(indexed) is False
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)
