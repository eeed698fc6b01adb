"""A rebase stopped on a conflict, then aborted: the index follows git back to the branch."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import wait_for_detached_sync


def hooked_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, env=hook_env(), capture_output=True, text=True, check=False
    )


def conflicting_branches(repo: Path) -> None:
    """main and feat both change docs/apple.md; feat also adds docs/durian.md."""
    write(repo, {"docs/apple.md": f"# Apple\n\nApple {BODY}"})
    commit_all(repo, "init")
    git(repo, "checkout", "-q", "-b", "feat")
    write(repo, {"docs/apple.md": f"# Apple\n\nFeat apple {BODY}"})
    write(repo, {"docs/durian.md": f"# Durian\n\nDurian {BODY}"})
    commit_all(repo, "feat")
    git(repo, "checkout", "-q", "main")
    write(repo, {"docs/apple.md": f"# Apple\n\nMain apple {BODY}"})
    commit_all(repo, "main")
    git(repo, "checkout", "-q", "feat")


def test_rebase_abort_syncs_the_index_back_to_the_branch(repo: Path, tmp_path: Path) -> None:
    # before: git runs only post-index-change on `rebase --abort`, while rebase-merge/ is
    # still there, so the shim skipped it and the index kept the stopped rebase's docs
    conflicting_branches(repo)
    kb = KnowledgeBase.open(repo)
    kb.ingest(warn=lambda *_: None)
    install.install(find_workspace(repo))
    stopped = hooked_git(repo, "rebase", "main")
    assert stopped.returncode != 0 and (repo / ".git" / "rebase-merge").is_dir()
    kb.sync()  # a search during the conflict syncs what is on disk, at main's commit
    assert kb.state().as_of == git(repo, "rev-parse", "main").strip()
    aborted = hooked_git(repo, "rebase", "--abort")
    assert aborted.returncode == 0, aborted.stderr
    assert not (repo / ".git" / "rebase-merge").exists()
    wait_for_detached_sync(repo, timeout=10)
    state = KnowledgeBase.open(repo).state()
    assert state.as_of == git(repo, "rev-parse", "HEAD").strip()
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


def test_rebase_abort_syncs_through_a_hook_file_the_team_keeps(repo: Path, tmp_path: Path) -> None:
    """A tracked hooks folder (core.hooksPath, as husky 5-8 and teams keep one) runs
    kenso-git by the line `hooks install` prints, which sets no KENSO_GIT_PID: kenso-git's
    parent is that file's shell, not git. It used to take `rebase --abort` for a replayed
    commit and skip it; it finds git among its ancestors now."""
    from kenso_git.triggers.githooks.owned import hook_line

    conflicting_branches(repo)
    hooks = repo / ".githooks"
    hooks.mkdir()
    script = hooks / "post-index-change"
    script.write_text("#!/bin/sh\n" + hook_line("post-index-change") + "\n", encoding="utf-8")
    script.chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    kb = KnowledgeBase.open(repo)
    kb.ingest(warn=lambda *_: None)
    stopped = hooked_git(repo, "rebase", "main")
    assert stopped.returncode != 0 and (repo / ".git" / "rebase-merge").is_dir()
    kb.sync()
    assert kb.state().as_of == git(repo, "rev-parse", "main").strip()
    aborted = hooked_git(repo, "rebase", "--abort")
    assert aborted.returncode == 0, aborted.stderr
    wait_for_detached_sync(repo, timeout=10)
    state = KnowledgeBase.open(repo).state()
    assert state.as_of == git(repo, "rev-parse", "HEAD").strip()
    assert index_dump(repo) == fresh_dump(repo, tmp_path)
