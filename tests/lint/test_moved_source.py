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


ALPHA = PAGE.format(t="Alpha") + "\n## Part\n\nSee [beta](beta.md) and [gamma](gamma.md).\n"
BETA = PAGE.format(t="Beta") + "\nSee [alpha](alpha.md#part).\n"


@pytest.mark.parametrize("commit", [True, False], ids=["committed", "staged"])
def test_a_moved_pages_link_to_a_page_moved_with_it_follows_the_target(
    repo: Path, commit: bool
) -> None:
    write(
        repo,
        {"docs/alpha.md": ALPHA, "docs/beta.md": BETA, "docs/gamma.md": PAGE.format(t="Gamma")},
    )
    commit_all(repo, "pages")
    (repo / "guide").mkdir()
    (repo / "ref").mkdir()
    git(repo, "mv", "docs/alpha.md", "guide/alpha.md")
    git(repo, "mv", "docs/beta.md", "ref/beta.md")
    if commit:
        commit_all(repo, "move two pages apart")
    where = git(repo, "log", "-1", "--format=%h").strip() if commit else "the staged changes"
    shown = run(repo, "--format", "concise", "--select", "KS022,KS024", "guide", "ref")
    # before: KS022 link "beta.md": guide/beta.md does not exist, and
    # KS022 link "alpha.md#part": ref/alpha.md does not exist
    assert shown.stdout.splitlines() == [
        f"guide/alpha.md:11:12: KS024 docs/alpha.md was moved to guide/alpha.md in {where}, "
        f"and docs/beta.md was renamed to ref/beta.md in {where}; the link was written for "
        'its old folder: lint --fix rewrites "beta.md" to "../ref/beta.md" (moved-target)',
        f"guide/alpha.md:11:33: KS024 docs/alpha.md was moved to guide/alpha.md in {where}; "
        'the link was written for its old folder: lint --fix rewrites "gamma.md" to '
        '"../docs/gamma.md" (moved-target)',
        f"ref/beta.md:9:13: KS024 docs/beta.md was moved to ref/beta.md in {where}, and "
        f"docs/alpha.md was renamed to guide/alpha.md in {where}; the link was written for "
        'its old folder: lint --fix rewrites "alpha.md#part" to "../guide/alpha.md#part" '
        "(moved-target)",
    ]
    run(repo, "--fix", "guide", "ref")
    assert (repo / "guide" / "alpha.md").read_text(encoding="utf-8") == ALPHA.replace(
        "(beta.md)", "(../ref/beta.md)"
    ).replace("(gamma.md)", "(../docs/gamma.md)")
    assert (repo / "ref" / "beta.md").read_text(encoding="utf-8") == BETA.replace(
        "(alpha.md#part)", "(../guide/alpha.md#part)"
    )
    assert run(repo, "--format", "concise", "--select", "KS022,KS023,KS024").stdout == ""
