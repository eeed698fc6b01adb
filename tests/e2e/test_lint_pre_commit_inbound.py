"""The real pre-commit runs the kenso-lint hook of this repository on real `git commit`s that
rename or delete a linked page: the commit is refused on the pages linking to it (which the
commit does not hold), and a commit that breaks nothing goes through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
ALPHA = PAGE.format(t="Alpha") + "\nSee [beta](b.md) and [gamma](../ref/c.md).\n"


def _pre_commit() -> Path:
    exe = Path(sys.executable).with_name("pre-commit")
    if not exe.is_file():
        pytest.skip("pre-commit is not installed in this environment")
    return exe


def _installed(repo: Path, hook_repo: Path, home: Path) -> dict[str, str]:
    write(
        repo,
        {
            "docs/guide/a.md": ALPHA,
            "docs/guide/b.md": PAGE.format(t="Beta"),
            "docs/ref/c.md": PAGE.format(t="Gamma"),
            "src/tool.py": "print('x')\n",
        },
    )
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    config = f"repos:\n-   repo: {hook_repo}\n    rev: {rev}\n    hooks:\n    -   id: kenso-lint\n"
    write(repo, {".pre-commit-config.yaml": config})
    commit_all(repo, "pages")
    pip_cache = os.environ.get("PIP_CACHE_DIR") or os.path.expanduser("~/.cache/pip")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_CACHE_DIR": pip_cache}
    subprocess.run(
        [str(_pre_commit()), "install"], cwd=repo, env=env, check=True, capture_output=True
    )
    return env


def _commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-m", message],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def test_pre_commit_refuses_a_rename_or_deletion_that_breaks_links_in_other_pages(
    repo: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    env = _installed(repo, hook_repo, pre_commit_home)
    git(repo, "mv", "docs/ref/c.md", "docs/ref/c2.md")
    renamed = _commit(repo, env, "rename c")
    out = renamed.stdout + renamed.stderr
    # before: "kenso-git lint....Passed" and the commit was made
    assert renamed.returncode == 1, out
    assert (
        "docs/guide/a.md:9:30: KS024 docs/ref/c.md was renamed to docs/ref/c2.md in the "
        "staged changes" in out
    )
    git(repo, "reset", "-q", "--hard", "HEAD")
    git(repo, "rm", "-q", "docs/guide/b.md")
    deleted = _commit(repo, env, "drop b")
    out = deleted.stdout + deleted.stderr
    # before: "kenso-git lint...(no files to check)Skipped" and the commit was made
    assert deleted.returncode == 1, out
    assert 'docs/guide/a.md:9:12: KS022 link "b.md": docs/guide/b.md does not exist' in out
    git(repo, "reset", "-q", "--hard", "HEAD")
    write(repo, {"src/tool.py": "print('y')\n"})
    git(repo, "add", "src/tool.py")
    unrelated = _commit(repo, env, "code only")
    assert unrelated.returncode == 0, unrelated.stdout + unrelated.stderr
    assert "kenso-git lint" in unrelated.stdout + unrelated.stderr  # ran, and passed
