"""`lint --diff` prints a patch `git apply` takes: a page with no final newline gets git's
`\\ No newline at end of file` marker, and a page with lone-CR line ends keeps its `\\r`s
(one line to git), as `git diff` would print them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

PAGES = {
    "no-final-newline": b"# No newline page title\n\nText text text [o](old.md) text text.",
    "crlf": b"# CRLF page title here\r\n\r\nText text text [o](old.md) text text.\r\n",
    "lone-cr": b"# Lone CR page title here\r\rText text text [o](old.md) text text.\r",
    "lone-cr-no-final": b"# Lone CR page title here\r\rText text text [o](old.md) text.",
}


def _diff(cwd: Path, rel: str) -> bytes:
    environ = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    result = subprocess.run(
        [sys.executable, "-m", "kenso_git", "lint", "--diff", "--select", "KS024", rel],
        cwd=cwd,
        capture_output=True,
        env=environ,
        check=False,
    )
    assert result.returncode == 1, result.stderr.decode()
    return result.stdout


@pytest.mark.parametrize("name", list(PAGES))
def test_lint_diff_patch_applies_with_git_apply(repo: Path, name: str) -> None:
    before = PAGES[name]
    write(repo, {"docs/old.md": "# Old page\n\nText.\n", "docs/page.md": before})
    commit_all(repo, "add")
    git(repo, "mv", "docs/old.md", "docs/new.md")
    commit_all(repo, "move")
    patch = repo.parent / "fix.patch"
    patch.write_bytes(_diff(repo, "docs/page.md"))
    check = subprocess.run(
        ["git", "apply", "--check", str(patch)], cwd=repo, capture_output=True, check=False
    )
    assert check.returncode == 0, check.stderr.decode() + patch.read_bytes().decode()
    git(repo, "apply", str(patch))
    page = repo / "docs" / "page.md"
    assert page.read_bytes() == before.replace(b"(old.md)", b"(new.md)")
