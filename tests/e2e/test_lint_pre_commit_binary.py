"""A real `git commit` through the kenso-lint hook `pre-commit install` writes: a staged `.md`
ingest would skip as binary (UTF-16 saved without a byte-order mark) is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

PAGE = "# Windows notes\n\nThese notes were saved by an editor as UTF-16 without a mark.\n"
GOOD = "---\ntags: [a, b, c]\n---\n# Payment Retry Guide\n\n" + (
    "Failed card payments are retried three times with backoff. " * 2 + "\n"
)


def test_pre_commit_refuses_a_staged_page_ingest_would_skip_as_binary(
    repo: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """pre-commit passes the `.md` (its type is read from the name); lint said "0 files,
    all checks passed" and the commit went in with a page no search would ever find."""
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    config = f"repos:\n-   repo: {hook_repo}\n    rev: {rev}\n    hooks:\n    -   id: kenso-lint\n"
    write(repo, {".pre-commit-config.yaml": config, "docs/guide.md": GOOD})
    commit_all(repo, "config")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    exe = Path(sys.executable).with_name("pre-commit")
    subprocess.run([str(exe), "install"], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "docs" / "notes.md").write_bytes(PAGE.encode("utf-16-le"))
    git(repo, "add", "docs/notes.md")
    # the work tree's copy is fixed but not staged: pre-commit lints what is staged
    (repo / "docs" / "notes.md").write_text(PAGE, encoding="utf-8")

    def commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-m", "notes"],
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
    assert "docs/notes.md:1:1: KS021 not text: NUL bytes and no byte-order mark" in out
    assert (repo / "docs" / "notes.md").read_text(encoding="utf-8") == PAGE  # put back
    git(repo, "add", "docs/notes.md")
    passed = commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
