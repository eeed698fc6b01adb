"""The real pre-commit executable runs the kenso-lint hook of this repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BAD = "---\ntags: [a, b, c]\nrelates_to: docs/nowhere.md\n---\n# Payment Retry Guide\n" + (
    "Failed card payments are retried three times with backoff. " * 2
)
GOOD = BAD.replace("relates_to: docs/nowhere.md\n", "")


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_refuses_error_findings_then_passes(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    exe = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(exe).exists():
        pytest.skip("pre-commit is not installed")
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "kenso test")
    (repo / "docs" / "guide.md").write_text(BAD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}

    def try_repo() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [exe, "try-repo", str(ROOT), "kenso-lint"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )

    refused = try_repo()
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "docs/guide.md:3:13: KS002" in refused.stdout
    (repo / "docs" / "guide.md").write_text(GOOD, encoding="utf-8")
    _git(repo, "add", "docs/guide.md")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    _git(repo, "commit", "-q", "-m", "docs")
