"""A page symlinked inside the repository is linted once, at its real path: read from the
symlink's folder its relative links name other files, and `--fix` writes no file through
a symlink, so a finding there was one no fix could clear (`lint --fix` exited 1 forever)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
INNER = PAGE.format(t="Inner") + "\nSee [notes](notes.md) and [beta](../docs/guide/b.md).\n"
SELECT = ("--select", "KS022,KS024")

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")


def _repo(repo: Path) -> None:
    write(
        repo,
        {
            "docs/guide/b.md": PAGE.format(t="Beta"),
            "real/inner.md": INNER,
            "real/notes.md": PAGE.format(t="Notes"),
        },
    )
    (repo / "docs" / "innerlink.md").symlink_to("../real/inner.md")
    commit_all(repo, "pages")
    git(repo, "mv", "docs/guide/b.md", "docs/guide/b2.md")
    commit_all(repo, "rename b")


def test_a_symlinked_page_is_linted_once_at_its_real_path_and_fix_clears_it(
    repo: Path,
) -> None:
    _repo(repo)
    short = git(repo, "log", "-1", "--format=%h").strip()
    shown = run(repo, "--format", "concise", *SELECT)
    # before: also docs/innerlink.md:9:13: KS022 link "notes.md": docs/notes.md does not
    # exist (read from the symlink's folder), and its KS024, which --fix did not write
    assert shown.stdout.splitlines() == [
        f"real/inner.md:9:34: KS024 docs/guide/b.md was renamed to docs/guide/b2.md in {short}; "
        "lint --fix rewrites the link (moved-target)"
    ]
    fixed = run(repo, "--fix", *SELECT)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "not rewritten" not in fixed.stderr
    assert (repo / "docs" / "innerlink.md").is_symlink()
    assert (repo / "real" / "inner.md").read_text(encoding="utf-8") == INNER.replace(
        "b.md", "b2.md"
    )
    assert run(repo, "--format", "concise", *SELECT).stdout == ""


def test_linting_the_symlink_alone_lints_its_real_page(repo: Path) -> None:
    _repo(repo)
    shown = run(repo, "--format", "concise", *SELECT, "docs/innerlink.md")
    assert [line.split(":")[0] for line in shown.stdout.splitlines()] == ["real/inner.md"]
