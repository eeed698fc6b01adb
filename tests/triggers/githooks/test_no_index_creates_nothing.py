"""A hook in a repository (or a new linked worktree) with no index creates nothing: the
detached post-checkout hook of every `git switch` left an empty `.kenso/sync.log` there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.helpers import git
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import hook_env


def detached_hook(cwd: Path, name: str, *args: str) -> None:
    """What the shim runs in the background after a checkout, run here to its end."""
    subprocess.run(
        [sys.executable, "-m", "kenso_git", "hook", name, *args],
        cwd=cwd,
        env=hook_env(KENSO_HOOK_DETACHED="1"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
        timeout=60,
    )


def test_a_detached_hook_with_no_index_creates_no_kenso_folder(repo: Path, tmp_path: Path) -> None:
    write(repo, {"docs/a.md": f"# A\n\nA {BODY}"})
    head = commit_all(repo, "docs")
    # (no shims installed: the calls below are the ones they would make, run to their end)
    git(repo, "switch", "-q", "-c", "topic")
    detached_hook(repo, "post-checkout", head, head, "1")
    detached_hook(repo, "post-merge", "0")
    assert not (repo / ".kenso").exists()
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "other")
    zero = "0" * 40
    detached_hook(worktree, "post-checkout", zero, head, "1")
    assert not (worktree / ".kenso").exists()


def test_a_detached_hook_of_an_indexed_repository_still_logs_beside_it(repo: Path) -> None:
    write(repo, {"docs/a.md": f"# A\n\nA {BODY}"})
    old = commit_all(repo, "docs")
    subprocess.run(
        [sys.executable, "-m", "kenso_git", "ingest", "--no-lint"], cwd=repo, check=True, timeout=60
    )
    write(repo, {"docs/b.md": f"# B\n\nB {BODY}"})
    new = commit_all(repo, "more")
    detached_hook(repo, "post-checkout", old, new, "1")
    assert (repo / ".kenso" / "sync.log").is_file()
    found = subprocess.run(
        [sys.executable, "-m", "kenso_git", "search", "B", "--no-sync", "--format", "tsv"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "docs/b.md" in found.stdout
