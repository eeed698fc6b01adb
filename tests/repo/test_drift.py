"""repo/drift.py: a clone whose upstream (as last fetched) has newer agent instructions."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.repo.drift import drift
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import run_cli


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    write(
        upstream,
        {
            "AGENTS.md": "be careful\n",
            ".cursor/rules/style.mdc": "tabs\n",
            "docs/guide.md": "guide\n",
        },
    )
    commit_all(upstream, "init")
    local = tmp_path / "local"
    git(tmp_path, "clone", "-q", str(upstream), str(local))
    return upstream, local


def test_a_newer_upstream_instruction_file_is_reported_with_its_commit(
    clone: tuple[Path, Path],
) -> None:
    upstream, local = clone
    write(
        upstream,
        {
            "AGENTS.md": "be careful\nrun the tests\n",
            "pkg/CLAUDE.md": "pkg rules\n",
            "docs/guide.md": "guide 2\n",
        },
    )
    newer = commit_all(upstream, "agents: run the tests")
    git(local, "fetch", "-q")

    found = drift(find_workspace(local))

    assert found.upstream == "origin/main" and found.behind == 1
    assert [(f.path, f.status) for f in found.files] == [
        ("AGENTS.md", "modified"),
        ("pkg/CLAUDE.md", "added"),
    ]
    agents = found.files[0]
    assert (agents.insertions, agents.deletions) == (1, 0)
    assert agents.last_commit is not None and agents.last_commit.id == newer
    line = found.summary()
    assert line is not None and "origin/main" in line and "AGENTS.md" in line
    assert found.to_dict()["drifted"] is True


def test_nothing_drifts_before_a_fetch_or_once_merged(clone: tuple[Path, Path]) -> None:
    upstream, local = clone
    write(upstream, {"AGENTS.md": "newer\n"})
    commit_all(upstream, "newer")

    assert not drift(find_workspace(local)).drifted  # never fetches
    git(local, "pull", "-q", "--ff-only")
    after = drift(find_workspace(local))
    assert not after.drifted and after.behind == 0 and after.summary() is None


def test_the_same_change_made_locally_is_no_drift(clone: tuple[Path, Path]) -> None:
    upstream, local = clone
    write(upstream, {".cursor/rules/style.mdc": "spaces\n", "docs/guide.md": "2\n"})
    commit_all(upstream, "style")
    git(local, "fetch", "-q")
    write(local, {".cursor/rules/style.mdc": "spaces\n"})
    commit_all(local, "style, here too")

    found = drift(find_workspace(local))

    assert found.behind == 1 and found.files == ()


def test_without_upstream_or_git_the_reason_says_why(tmp_path: Path, clone) -> None:
    _, local = clone
    git(local, "checkout", "-q", "-b", "topic")

    assert "no upstream" in (drift(find_workspace(local)).reason or "")
    assert drift(find_workspace(tmp_path / "upstream" / "..")).reason


def test_a_detached_head_is_said_to_be_detached(clone: tuple[Path, Path]) -> None:
    """It said "the current branch has no upstream" where there is no branch (t47a, 7)."""
    _, local = clone
    git(local, "checkout", "-q", "--detach")

    reason = drift(find_workspace(local)).reason or ""
    proc = run_cli(local, "drift")

    assert reason.startswith("HEAD is detached") and "`git switch BRANCH`" in reason
    assert "current branch" not in reason
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"no drift check: {reason}\n"


def test_a_branch_with_no_commit_yet_has_no_upstream(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main", "fresh")

    reason = drift(find_workspace(tmp_path / "fresh")).reason or ""

    assert reason.startswith("the current branch has no upstream")
