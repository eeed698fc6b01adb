"""The real pre-commit executable runs the kenso-lint hook of this repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import pre_commit_try_repo

ROOT = Path(__file__).resolve().parents[2]
BAD = "---\ntags: [a, b, c]\nrelates_to: docs/nowhere.md\n---\n# Payment Retry Guide\n" + (
    "Failed card payments are retried three times with backoff. " * 2
)
GOOD = BAD.replace("relates_to: docs/nowhere.md\n", "")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_refuses_error_findings_then_passes(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "kenso test")
    (repo / "docs" / "guide.md").write_text(BAD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")

    def try_repo() -> subprocess.CompletedProcess[str]:
        return pre_commit_try_repo(repo, ROOT, "kenso-lint", pre_commit_home)

    refused = try_repo()
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "docs/guide.md:3:13: KS002" in refused.stdout
    (repo / "docs" / "guide.md").write_text(GOOD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    _git(repo, "commit", "-q", "-m", "docs")
