"""Where a file of the tree came from, back along a chain of renames: each earlier place,
newest first, with the newest commit and the places between (repo/moves.py `origins`)."""

from __future__ import annotations

from pathlib import Path

from kenso_git.repo.moves import Origin
from kenso_git.repo.moves import find_moves
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

TEXT = "A page with enough words that git's similarity index sees the same file.\n" * 5


def _origins(root: Path, source: str) -> tuple[Origin, ...]:
    found = find_moves(
        find_workspace(root), (), lambda path: (root / path).exists(), sources={source}
    )
    return (found.origins or {}).get(source, ())


def test_a_file_renamed_three_times_names_each_place_it_was(repo: Path) -> None:
    write(repo, {"one.md": TEXT})
    commit_all(repo, "add")
    git(repo, "mv", "one.md", "two.md")
    commit_all(repo, "one to two")
    git(repo, "mv", "two.md", "three.md")
    commit_all(repo, "two to three")
    git(repo, "mv", "three.md", "four.md")
    # before: only three.md: the renames before the last were not followed
    assert _origins(repo, "four.md") == (
        Origin("three.md", "the staged changes"),
        Origin("two.md", "the staged changes", ("three.md",)),
        Origin("one.md", "the staged changes", ("two.md", "three.md")),
    )
    commit_all(repo, "three to four")
    last = git(repo, "rev-parse", "--short", "HEAD").strip()
    chain = _origins(repo, "four.md")
    assert [(o.old, o.commit, o.via) for o in chain] == [
        ("three.md", last, ()),
        ("two.md", last, ("three.md",)),
        ("one.md", last, ("two.md", "three.md")),
    ]
    assert chain[2].describe("four.md") == (
        f"one.md was moved to four.md in {last} (through two.md, three.md)"
    )


def test_a_file_added_back_where_it_was_stops_the_chain(repo: Path) -> None:
    """a -> b, then b -> a again: the chain does not go round."""
    write(repo, {"a.md": TEXT})
    commit_all(repo, "add")
    git(repo, "mv", "a.md", "b.md")
    commit_all(repo, "a to b")
    git(repo, "mv", "b.md", "a.md")
    commit_all(repo, "b back to a")
    assert [o.old for o in _origins(repo, "a.md")] == ["b.md"]
