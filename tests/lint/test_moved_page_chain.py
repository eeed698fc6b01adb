"""A page git moved more than once keeps relative links written at any of its old places:
each is a KS024 re-based from the place it names a file from (the newest first), with the
chain of moves in the message, and `lint --fix` clears them, whether the last move is
committed or staged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
ALPHA = PAGE.format(t="Alpha") + "\nSee [beta](b.md) and [gamma](../ref/c.md).\n"
BETA = PAGE.format(t="Beta") + "\nSee [alpha](a.md).\n"
GAMMA = PAGE.format(t="Gamma") + "\nSee [alpha](../guide/a.md).\n"
SELECT = ("--select", "KS022,KS024")


def _pages(repo: Path) -> None:
    write(repo, {"docs/guide/a.md": ALPHA, "docs/guide/b.md": BETA, "docs/ref/c.md": GAMMA})
    commit_all(repo, "pages")
    (repo / "docs" / "x" / "y").mkdir(parents=True)


def _concise(repo: Path, *paths: str) -> list[str]:
    return run(repo, "--format", "concise", *SELECT, *paths).stdout.splitlines()


def _short(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%h").strip()


@pytest.mark.parametrize("last", ["committed", "staged"])
def test_a_page_moved_twice_has_a_link_written_at_its_first_place_rebased(
    repo: Path, last: str
) -> None:
    _pages(repo)
    git(repo, "mv", "docs/guide/a.md", "docs/x/a.md")
    commit_all(repo, "a to x")
    git(repo, "mv", "docs/x/a.md", "docs/x/y/a.md")
    if last == "committed":
        commit_all(repo, "a to x/y")
    where = _short(repo) if last == "committed" else "the staged changes"
    # before: KS022 link "b.md": docs/x/y/b.md does not exist (only the last move was read)
    assert _concise(repo, "docs/x/y/a.md") == [
        f"docs/x/y/a.md:9:12: KS024 docs/guide/a.md was moved to docs/x/y/a.md in {where} "
        "(through docs/x/a.md); the link was written for its old folder: lint --fix "
        'rewrites "b.md" to "../../guide/b.md" (moved-target)',
        f"docs/x/y/a.md:9:30: KS024 docs/x/a.md was moved to docs/x/y/a.md in {where}; the "
        'link was written for its old folder: lint --fix rewrites "../ref/c.md" to '
        '"../../ref/c.md" (moved-target)',
    ]
    assert run(repo, "--fix", *SELECT, "docs").returncode == 0
    text = (repo / "docs" / "x" / "y" / "a.md").read_text(encoding="utf-8")
    assert text.endswith("See [beta](../../guide/b.md) and [gamma](../../ref/c.md).\n")
    assert _concise(repo, "docs") == []


def test_a_page_moved_twice_follows_a_page_that_moved_too(repo: Path) -> None:
    """b moved twice (guide -> z -> w/b2.md) and a once: b's link to a, written at
    docs/guide, names where a went."""
    _pages(repo)
    (repo / "docs" / "z").mkdir()
    (repo / "docs" / "w").mkdir()
    git(repo, "mv", "docs/guide/b.md", "docs/z/b.md")
    commit_all(repo, "b to z")
    git(repo, "mv", "docs/z/b.md", "docs/w/b2.md")
    commit_all(repo, "b to w/b2")
    b_moved = _short(repo)
    git(repo, "mv", "docs/guide/a.md", "docs/x/y/a.md")
    commit_all(repo, "a to x/y")
    a_moved = _short(repo)
    # before: KS022 link "a.md": docs/w/a.md does not exist, and --fix left it
    assert _concise(repo, "docs/w/b2.md") == [
        f"docs/w/b2.md:9:13: KS024 docs/guide/b.md was moved to docs/w/b2.md in {b_moved} "
        f"(through docs/z/b.md), and docs/guide/a.md was renamed to docs/x/y/a.md in "
        f"{a_moved}; the link was written for its old folder: lint --fix rewrites "
        '"a.md" to "../x/y/a.md" (moved-target)'
    ]
    assert run(repo, "--fix", *SELECT, "docs").returncode == 0
    assert (
        (repo / "docs" / "w" / "b2.md")
        .read_text(encoding="utf-8")
        .endswith("See [alpha](../x/y/a.md).\n")
    )
    assert _concise(repo, "docs") == []
