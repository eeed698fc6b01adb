"""The real pre-commit executable runs the kenso-lint hook of this repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import pre_commit_run_hook

BAD = "---\ntags: [a, b, c]\nrelates_to: docs/nowhere.md\n---\n# Payment Retry Guide\n" + (
    "Failed card payments are retried three times with backoff. " * 2
)
GOOD = BAD.replace("relates_to: docs/nowhere.md\n", "")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_refuses_error_findings_then_passes(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "kenso test")
    (repo / "docs" / "guide.md").write_text(BAD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")

    def try_repo() -> subprocess.CompletedProcess[str]:
        return pre_commit_run_hook(repo, hook_repo, "kenso-lint", pre_commit_home)

    refused = try_repo()
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "docs/guide.md:3:13: KS002" in refused.stdout
    (repo / "docs" / "guide.md").write_text(GOOD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    _git(repo, "commit", "-q", "-m", "docs")


MOVED_TARGET = "# Payment Retries\n\n" + "Failed card payments are retried with backoff. " * 6
LINKING = "---\ntags: [a, b, c]\n---\n# Retry Guide For Payments\n\n" + (
    "Read [the retries page](retries.md) before changing the backoff policy. " * 2 + "\n"
)


def test_pre_commit_with_fix_rewrites_a_moved_link_and_fails_the_commit_as_fixers_do(
    repo: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """A real `git commit` through the hook `pre-commit install` writes, the kenso-lint hook
    configured with `args: [--fix]`: the first commit is refused with the link rewritten,
    the second (the fix staged) goes through."""
    write(repo, {"docs/retries.md": MOVED_TARGET, "docs/guide.md": LINKING})
    commit_all(repo, "docs")
    (repo / "docs" / "payments").mkdir()
    git(repo, "mv", "docs/retries.md", "docs/payments/retries.md")
    commit_all(repo, "move the retries page")
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    config = (
        f"repos:\n-   repo: {hook_repo}\n    rev: {rev}\n    hooks:\n"
        "    -   id: kenso-lint\n        args: [--fix]\n"
    )
    write(repo, {".pre-commit-config.yaml": config})
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    exe = Path(sys.executable).with_name("pre-commit")
    subprocess.run([str(exe), "install"], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "docs" / "guide.md").write_text(LINKING + "\nOne more line.\n", encoding="utf-8")
    git(repo, "add", "-A")

    def commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-m", "edit the guide"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )

    refused = commit()
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert "files were modified by this hook" in out
    assert "fixed 2 findings in 1 file" in out
    fixed = (repo / "docs" / "guide.md").read_text(encoding="utf-8")
    assert fixed.count("[the retries page](payments/retries.md)") == 2
    git(repo, "add", "docs/guide.md")
    passed = commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
