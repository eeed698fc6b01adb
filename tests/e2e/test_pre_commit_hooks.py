"""The kenso-reindex hook through the real pre-commit executable (slow: builds a venv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import pre_commit_run_hook
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import ingest
from tests.triggers.githooks.indexdump import is_stale

pytestmark = pytest.mark.slow


def try_repo(target: Path, hook_repo: Path, home: Path, *stage_args: str) -> str:
    proc = pre_commit_run_hook(target, hook_repo, "kenso-reindex", home, "--verbose", *stage_args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_pre_commit_post_checkout_stage_syncs_and_a_commit_is_left_to_the_next_read(
    repo: Path, tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    body = "The widget pipeline is explained here in enough words to be indexed.\n"
    write(repo, {"docs/a.md": f"# A\n\n{body}", "docs/b.md": f"# B\n\n{body}"})
    first = commit_all(repo, "docs")
    ingest(repo)
    write(repo, {"docs/a.md": f"# A\n\n{body}More.\n", "docs/c.md": f"# C\n\n{body}"})
    second = commit_all(repo, "more docs")
    assert is_stale(repo)
    # kenso-reindex has no post-commit stage (#16): a commit changes no file, and the next
    # read records it.
    proc = pre_commit_run_hook(
        repo, hook_repo, "kenso-reindex", pre_commit_home, "--hook-stage", "post-commit"
    )
    assert "No hook with id `kenso-reindex` in stage `post-commit`" in proc.stdout
    KnowledgeBase.open(repo).search("widget")
    assert is_stale(repo) is False
    assert index_dump(repo) == fresh_dump(repo, tmp_path)

    git(repo, "checkout", "-q", first)
    assert is_stale(repo)
    checkout = ["--hook-stage", "post-checkout", "--from-ref", second, "--to-ref", first]
    try_repo(repo, hook_repo, pre_commit_home, *checkout, "--checkout-type", "1")
    assert is_stale(repo) is False
    assert index_dump(repo) == fresh_dump(repo, tmp_path)
