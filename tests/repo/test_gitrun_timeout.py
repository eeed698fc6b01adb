"""A git command that runs past its time limit: a `.gitignore` whose patterns git matches
for minutes (`*a*a*a*a*a*a*a*a*a*a*b0` against a 200-byte name: git's wildmatch backtracks
through every way to place the stars) made every sync wait out git's 30 s twice with no word.
The command is stopped as git can clean up after itself (no `index.lock` left behind), the
user is told on stderr which command, where, and what to do, and the sync goes on without
git's answer. The limit comes from `KENSO_GIT_TIMEOUT` here, so no test waits 30 s.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kenso_git.errors import GitError
from kenso_git.repo.gitrun import capture
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

DOC = "# Install guide\n\nThe install steps for the tool, in enough words to index them.\n"
# git takes minutes on one such name and pattern (it took over a minute to give up on one)
SLOW_PATTERNS = "".join("*a" * 10 + f"*{c}0\n" for c in "bcd")
LONG_NAME = "notes/" + "a" * 190 + "00000.md"


def _slow_repo(root: Path) -> Path:
    """A repository whose untracked file keeps git's ignore matching busy for minutes."""
    init_repo(root, {"docs/guide.md": DOC})
    write(root, {".gitignore": SLOW_PATTERNS, LONG_NAME: DOC})
    return root


def test_a_git_command_past_its_time_limit_says_which_where_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = _slow_repo(tmp_path / "repo")
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "2")
    with caplog.at_level(logging.WARNING), pytest.raises(GitError) as stopped:
        run_git(find_workspace(root), "status", "--porcelain")
    assert stopped.value.message == (
        f"git status --porcelain did not finish within 2 s in {root} and was stopped"
    )
    assert stopped.value.hint is not None
    assert ".gitignore" in stopped.value.hint and "KENSO_GIT_TIMEOUT" in stopped.value.hint
    assert f"kenso-git stopped `git status --porcelain` in {root}" in caplog.text


def test_a_git_status_stopped_at_its_time_limit_leaves_no_index_lock(tmp_path: Path) -> None:
    """git status holds `index.lock` while it scans (to refresh the index); killed outright
    (SIGKILL) it left the lock, and every git command of the user's failed on it after."""
    root = _slow_repo(tmp_path / "repo")
    with pytest.raises(TimeoutError):
        capture(["git", "-C", str(root), "status", "--porcelain"], dict(os.environ), 2.0)
    assert not (root / ".git" / "index.lock").exists()
    git(root, "add", "docs/guide.md")


def test_a_sync_that_git_cannot_answer_in_time_says_so_and_still_indexes_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC})
    assert run_cli(root, "ingest").returncode == 0
    write(root, {".gitignore": SLOW_PATTERNS, LONG_NAME: DOC})
    write(root, {"docs/guide.md": DOC + "\nThe zanzibar option sets the port.\n"})
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "2")
    synced = run_cli(root, "sync")
    assert synced.returncode == 0, synced.stderr
    assert "kenso-git stopped `git status " in synced.stderr
    assert f" in {root}: it did not finish within 2 s" in synced.stderr
    assert "hint: run `git status` there" in synced.stderr
    assert "KENSO_GIT_TIMEOUT=<seconds>" in synced.stderr
    assert not (root / ".git" / "index.lock").exists()
    monkeypatch.setenv("KENSO_QUERY_SYNC", "0")  # what the sync wrote, not a second sync
    found = run_cli(root, "search", "zanzibar", "--json")
    assert found.returncode == 0, found.stderr
    assert '"docs/guide.md"' in found.stdout
    status = subprocess.run(
        ["git", "diff", "--quiet", "--", "docs/guide.md"], cwd=root, check=False
    )
    assert status.returncode == 1  # git's index untouched by the stopped status: still modified


def test_a_status_past_its_time_limit_is_not_asked_again_on_gits_own_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A status that timed out on kenso-git's copy of the index was asked again on git's own
    (as for a copy git cannot read), and the sync waited out the limit twice: git matches
    the same patterns there. `git` on PATH is a wrapper that notes each call and runs git."""
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC})
    assert run_cli(root, "ingest").returncode == 0
    write(root, {".gitignore": SLOW_PATTERNS, LONG_NAME: DOC})
    write(root, {"docs/guide.md": DOC + "\nThe zanzibar option sets the port.\n"})
    calls, real = tmp_path / "calls.txt", shutil.which("git")
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "2")
    synced = run_cli(root, "sync")
    assert synced.returncode == 0, synced.stderr
    statuses = [line for line in calls.read_text().splitlines() if " status " in f" {line} "]
    assert len(statuses) == 1, statuses
