"""A real `git commit` through the hook `pre-commit install` writes: a staged page that links
to a page written but never `git add`-ed is refused, with the fix named; staged, it passes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

GUIDE = "---\ntags: [a, b, c]\n---\n# Guide Page About Widgets\n\n" + (
    "Some text that is long enough to be a document for the linter. " * 2 + "\n"
)
NEW = "---\ntags: [a, b, c]\n---\n# New Page About Gadgets\n\n" + (
    "Written but never staged, so it is not in the commit. " * 2 + "\n"
)


def test_pre_commit_refuses_a_link_to_a_page_left_out_of_the_commit(
    repo: Path, pre_commit_home: Path
) -> None:
    entry = f"{sys.executable} -m kenso_git lint"
    config = (
        "repos:\n-   repo: local\n    hooks:\n    -   id: kenso-lint\n"
        f"        name: kenso-git lint\n        entry: {entry}\n        language: system\n"
        "        types: [markdown]\n        require_serial: true\n"
    )
    write(repo, {".pre-commit-config.yaml": config, "docs/guide.md": GUIDE})
    commit_all(repo, "guide")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    env.pop("PRE_COMMIT", None)
    env.pop("GIT_INDEX_FILE", None)
    exe = Path(sys.executable).with_name("pre-commit")
    subprocess.run([str(exe), "install"], cwd=repo, env=env, check=True, capture_output=True)
    write(repo, {"docs/new.md": NEW, "docs/guide.md": GUIDE + "\nSee [the new page](new.md).\n"})
    git(repo, "add", "docs/guide.md")

    def commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-m", "link the new page"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )

    refused = commit()
    out = refused.stdout + refused.stderr
    # before: "kenso-git lint....Passed" and HEAD linked to new.md, which no commit held
    assert refused.returncode == 1, out
    assert (
        'KS022 link "new.md": docs/new.md exists but is not staged: `git add docs/new.md`'
    ) in out
    git(repo, "add", "docs/new.md")
    passed = commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git(repo, "ls-tree", "-r", "--name-only", "HEAD", "docs").split() == [
        "docs/guide.md",
        "docs/new.md",
    ]
