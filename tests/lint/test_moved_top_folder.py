"""A code path under a top-level folder git renamed away (`git mv src lib`) is a KS024 with
the fix, as one under a folder that still exists is; under one git deleted it is a KS025
saying so; a path whose first folder git never had stays prose (no finding)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

GUIDE = (
    "---\ntitle: Tool guide\ntags: [a, b, c]\n---\n# Tool guide\n\n"
    "The tool lives at `src/pkg/tool.py`, its folder is `src/pkg/`, and it answers\n"
    "`application/json`.\n"
)
SELECT = ("--select", "KS022,KS024,KS025")


def _concise(repo: Path) -> list[str]:
    return run(repo, "--format", "concise", *SELECT, "docs").stdout.splitlines()


@pytest.mark.parametrize("commit", [True, False], ids=["committed", "staged"])
def test_a_code_path_under_a_renamed_top_level_folder_is_ks024_and_fixed(
    repo: Path, commit: bool
) -> None:
    write(repo, {"docs/guide.md": GUIDE, "src/pkg/tool.py": "print('x')\n"})
    commit_all(repo, "init")
    git(repo, "mv", "src", "lib")
    if commit:
        commit_all(repo, "rename src to lib")
    where = git(repo, "log", "-1", "--format=%h").strip() if commit else "the staged changes"
    # before: no finding at all (KS025's "first folder exists" gate hid KS024 too)
    assert _concise(repo) == [
        f"docs/guide.md:7:20: KS024 src/pkg/tool.py was renamed to lib/pkg/tool.py in {where}; "
        "lint --fix rewrites the code path (moved-target)",
        f"docs/guide.md:7:53: KS024 src/pkg was renamed to lib/pkg in {where}; lint --fix "
        "rewrites the code path (moved-target)",
    ]
    assert run(repo, "--fix", *SELECT, "docs").returncode == 0
    text = (repo / "docs" / "guide.md").read_text(encoding="utf-8")
    assert text == GUIDE.replace("`src/", "`lib/")
    assert _concise(repo) == []


def test_a_code_path_under_a_deleted_top_level_folder_is_ks025(repo: Path) -> None:
    write(repo, {"docs/guide.md": GUIDE, "src/pkg/tool.py": "print('x')\n"})
    commit_all(repo, "init")
    git(repo, "rm", "-rq", "src")
    commit_all(repo, "drop src")
    deleted = git(repo, "log", "-1", "--format=%h").strip()
    assert _concise(repo) == [
        f"docs/guide.md:7:20: KS025 code path `src/pkg/tool.py` is not in the tree: deleted in "
        f"{deleted} (missing-code-path)",
        f"docs/guide.md:7:53: KS025 code path `src/pkg/` is not in the tree: deleted in "
        f"{deleted} (missing-code-path)",
    ]
