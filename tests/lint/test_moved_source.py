"""A page git moved to another folder keeps relative links written for its old folder: each
one that names a file from there is a KS024 (the page moved) with the fix that re-bases it,
applied by `lint --fix` and shown by `--diff`, whether the move is committed or staged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
SOURCE = PAGE.format(t="Source") + (
    "\nSee [target](../target.md#part), [sibling](sibling.md) and [gone](gone.md).\n"
)


def _moved(repo: Path, *, commit: bool) -> None:
    write(
        repo,
        {
            "docs/target.md": PAGE.format(t="Target") + "\n## Part\n\nMore.\n",
            "docs/guide/sibling.md": PAGE.format(t="Sibling"),
            "docs/guide/source.md": SOURCE,
        },
    )
    commit_all(repo, "pages")
    git(repo, "mv", "docs/guide/source.md", "docs/source.md")
    if commit:
        commit_all(repo, "move source up a level")


def _concise(repo: Path) -> list[str]:
    shown = run(repo, "--format", "concise", "--select", "KS022,KS023,KS024", "docs/source.md")
    return shown.stdout.splitlines()


@pytest.mark.parametrize("commit", [True, False], ids=["committed", "staged"])
def test_a_moved_pages_own_links_are_rebased_by_fix(repo: Path, commit: bool) -> None:
    _moved(repo, commit=commit)
    where = git(repo, "log", "-1", "--format=%h").strip() if commit else "the staged changes"
    moved = f"docs/guide/source.md was moved to docs/source.md in {where}; the link was "
    # before: KS022 link "../target.md#part": target.md does not exist, and
    # KS022 link "sibling.md": docs/sibling.md does not exist; --diff printed nothing
    assert _concise(repo) == [
        f"docs/source.md:9:14: KS024 {moved}written for its old folder: lint --fix rewrites "
        '"../target.md#part" to "target.md#part" (moved-target)',
        f"docs/source.md:9:44: KS024 {moved}written for its old folder: lint --fix rewrites "
        '"sibling.md" to "guide/sibling.md" (moved-target)',
        'docs/source.md:9:67: KS022 link "gone.md": docs/gone.md does not exist (dead-link)',
    ]
    diff = run(repo, "--diff", "docs/source.md").stdout
    assert "+See [target](target.md#part), [sibling](guide/sibling.md) and" in diff
    run(repo, "--fix", "docs/source.md")
    text = (repo / "docs" / "source.md").read_text(encoding="utf-8")
    assert text == SOURCE.replace("../target.md", "target.md").replace(
        "(sibling.md)", "(guide/sibling.md)"
    )
    assert _concise(repo) == [
        'docs/source.md:9:70: KS022 link "gone.md": docs/gone.md does not exist (dead-link)'
    ]


def test_a_page_git_never_moved_keeps_its_dead_links_as_ks022(repo: Path) -> None:
    write(
        repo,
        {"docs/guide/sibling.md": PAGE.format(t="Sibling"), "docs/source.md": SOURCE},
    )
    commit_all(repo, "pages")
    assert [line.split(": ")[1].split(" ")[0] for line in _concise(repo)] == ["KS022"] * 3
