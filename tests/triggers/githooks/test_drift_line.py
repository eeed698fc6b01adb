"""#29: post-checkout and post-merge print one line when the upstream branch, as git last
fetched it, has a newer agent instruction file; real hooks from `kenso-git hooks install`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import run_cli

LINE = "has newer agent instructions"


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr  # the hook never fails git
    return proc


def _clone_behind(repo: Path, tmp_path: Path) -> Path:
    """A clone of `repo` with hooks installed, whose upstream (fetched, not merged) changed
    AGENTS.md after the clone."""
    write(repo, {"AGENTS.md": "# Agents\n\nRun the tests.\n", "docs/a.md": "# A\n\nText.\n"})
    commit_all(repo, "instructions")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(repo), str(work))
    assert run_cli(work, "hooks", "install").returncode == 0
    write(repo, {"AGENTS.md": "# Agents\n\nRun the tests, then the linter.\n"})
    commit_all(repo, "tighten instructions")
    git(work, "fetch", "-q")
    return work


def test_post_checkout_names_the_newer_instruction_file_upstream(
    repo: Path, tmp_path: Path
) -> None:
    work = _clone_behind(repo, tmp_path)
    branch = git(work, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _run(work, "checkout", "-q", "-b", "topic")  # topic has no upstream: no line
    proc = _run(work, "checkout", "-q", branch)
    lines = [line for line in proc.stderr.splitlines() if LINE in line]
    assert len(lines) == 1, proc.stderr
    assert f"origin/{branch}" in lines[0] and "AGENTS.md" in lines[0]
    assert "kenso-git drift" in lines[0]


def test_post_merge_names_it_too_and_a_caught_up_checkout_says_nothing(
    repo: Path, tmp_path: Path
) -> None:
    work = _clone_behind(repo, tmp_path)
    branch = git(work, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _run(work, "checkout", "-q", "-b", "side")
    write(work, {"docs/b.md": "# B\n\nMore.\n"})
    commit_all(work, "side doc")
    _run(work, "checkout", "-q", branch)
    proc = _run(work, "merge", "-q", "--no-edit", "--no-ff", "side")
    assert sum(LINE in line for line in proc.stderr.splitlines()) == 1, proc.stderr

    proc = _run(work, "merge", "-q", "--no-edit", f"origin/{branch}")  # caught up
    assert LINE not in proc.stderr
    proc = _run(work, "checkout", "-q", "side")
    assert LINE not in proc.stderr


def test_no_line_when_the_hooks_are_off(repo: Path, tmp_path: Path) -> None:
    work = _clone_behind(repo, tmp_path)
    branch = git(work, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _run(work, "checkout", "-q", "-b", "topic")
    proc = subprocess.run(
        ["git", "checkout", "-q", branch],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "KENSO_HOOKS": "0"},
    )
    assert proc.returncode == 0 and LINE not in proc.stderr
