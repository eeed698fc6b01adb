"""Run from a commit hook, lint judges links against what the commit holds: a target that is
on disk but untracked (written, never `git add`-ed) is a KS022 error that says to stage it.
Outside a hook, and for a file git ignores (a build output no commit holds), nothing changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
GUIDE = PAGE.format(t="Guide") + "\nSee [the new page](new.md) and [the build](../out/api.md).\n"


@pytest.fixture
def staged_link(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.delenv("GIT_INDEX_FILE", raising=False)
    write(repo, {".gitignore": "out/\n", "docs/guide.md": PAGE.format(t="Guide")})
    commit_all(repo, "guide")
    write(repo, {"docs/guide.md": GUIDE, "docs/new.md": PAGE.format(t="New"), "out/api.md": "x"})
    git(repo, "add", "docs/guide.md")
    return repo


def _findings(repo: Path, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    shown = run(repo, "--format", "concise", "--select", "KS022", "docs/guide.md", env=env)
    return shown.returncode, shown.stdout.splitlines()


@pytest.mark.parametrize(
    "env", [{"PRE_COMMIT": "1"}, {"GIT_INDEX_FILE": ".git/index"}], ids=["pre-commit", "git"]
)
def test_a_link_to_an_untracked_page_fails_a_commit_hook(
    staged_link: Path, env: dict[str, str]
) -> None:
    # before: exit 0 and no finding; the commit landed linking to a page it did not hold
    assert _findings(staged_link, env) == (
        1,
        [
            'docs/guide.md:9:20: KS022 link "new.md": docs/new.md exists but is not staged: '
            "`git add docs/new.md`, or the commit holds a dead link (dead-link)"
        ],
    )
    git(staged_link, "add", "docs/new.md")
    assert _findings(staged_link, env) == (0, [])


def test_outside_a_commit_hook_an_untracked_page_is_a_page(staged_link: Path) -> None:
    assert _findings(staged_link) == (0, [])
