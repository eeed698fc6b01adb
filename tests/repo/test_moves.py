"""Where git moved a missing path: renames committed and staged, folders moved whole, chains
of renames, and the commit that deleted a path (repo/moves.py, #30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.repo.moves import find_moves
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

TEXT = "A page with enough words that git's similarity index sees the same file.\n" * 5


def _exists(root: Path):
    return lambda path: (root / path).exists()


def _short(root: Path, rev: str = "HEAD") -> str:
    return git(root, "rev-parse", "--short", rev).strip()


def test_a_committed_rename_names_the_new_path_and_the_commit(repo: Path) -> None:
    write(repo, {"docs/old.md": TEXT, "docs/keep.md": "keep\n"})
    commit_all(repo, "add")
    git(repo, "mv", "docs/old.md", "docs/new.md")
    commit_all(repo, "rename")
    found = find_moves(find_workspace(repo), {"docs/old.md"}, _exists(repo))
    move = found.moved["docs/old.md"]
    assert (move.new, move.commit) == ("docs/new.md", _short(repo))
    assert move.describe("docs/old.md") == (
        f"docs/old.md was renamed to docs/new.md in {_short(repo)}"
    )
    assert found.deleted == {}


def test_a_staged_rename_is_found_before_it_is_committed(repo: Path) -> None:
    write(repo, {"a.md": TEXT})
    commit_all(repo, "add")
    git(repo, "mv", "a.md", "b.md")
    found = find_moves(find_workspace(repo), {"a.md"}, _exists(repo))
    assert found.moved["a.md"].new == "b.md"
    assert found.moved["a.md"].commit == "the staged changes"


def test_a_folder_moved_whole_moves_as_a_folder(repo: Path) -> None:
    write(repo, {"guides/a.md": TEXT, "guides/b.md": TEXT.upper()})
    commit_all(repo, "add")
    git(repo, "mv", "guides", "handbook")
    commit_all(repo, "move the folder")
    found = find_moves(find_workspace(repo), {"guides"}, _exists(repo))
    assert found.moved["guides"].new == "handbook"


def test_a_chain_of_renames_is_followed_to_where_the_path_is_now(repo: Path) -> None:
    write(repo, {"one.md": TEXT})
    commit_all(repo, "add")
    git(repo, "mv", "one.md", "two.md")
    commit_all(repo, "first rename")
    git(repo, "mv", "two.md", "three.md")
    commit_all(repo, "second rename")
    move = find_moves(find_workspace(repo), {"one.md"}, _exists(repo)).moved["one.md"]
    assert (move.new, move.via) == ("three.md", ("two.md",))
    assert "(through two.md)" in move.describe("one.md")


def test_a_deleted_path_names_the_deleting_commit_and_an_unknown_one_nothing(
    repo: Path,
) -> None:
    write(repo, {"gone.md": "short\n", "src/old/x.py": "x = 1\n", "stay.md": "x\n"})
    commit_all(repo, "add")
    git(repo, "rm", "-q", "-r", "gone.md", "src/old")
    commit_all(repo, "delete")
    found = find_moves(find_workspace(repo), {"gone.md", "src/old", "never.md"}, _exists(repo))
    assert found.moved == {}
    assert found.deleted == {"gone.md": _short(repo), "src/old": _short(repo)}


def test_outside_git_nothing_moved(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "x\n"})
    found = find_moves(find_workspace(tmp_path), {"b.md"}, _exists(tmp_path))
    assert found.moved == {} and found.deleted == {}


def test_a_repository_without_commits_has_no_moves_and_no_error(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, {"a.md": TEXT})
    git(tmp_path, "add", "a.md")
    found = find_moves(find_workspace(tmp_path), {"gone.md"}, _exists(tmp_path))
    assert (found.moved, found.deleted) == ({}, {})


def test_a_failing_history_is_still_an_error(repo: Path) -> None:
    import pytest

    from kenso_git.errors import GitError

    write(repo, {"a.md": TEXT})
    commit_all(repo, "add")
    head = git(repo, "rev-parse", "HEAD").strip()
    obj = repo / ".git" / "objects" / head[:2] / head[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"broken")
    with pytest.raises(GitError):
        find_moves(find_workspace(repo), {"gone.md"}, _exists(repo))


def _history_of_moves(repo: Path) -> None:
    write(repo, {"one.md": TEXT, "guides/a.md": TEXT.upper(), "gone.md": "short\n"})
    write(repo, {"src/old/x.py": "x = 1\n", "stay.md": "x\n", "other/z.md": TEXT.lower()})
    commit_all(repo, "add")
    git(repo, "mv", "one.md", "two.md")
    git(repo, "mv", "guides", "handbook")
    git(repo, "rm", "-q", "-r", "gone.md", "src/old", "other/z.md")
    commit_all(repo, "move and delete")
    git(repo, "mv", "two.md", "three.md")
    commit_all(repo, "again")


ASKED = {"one.md", "guides", "gone.md", "src/old", "src", "never.md", "guides/a.md"}


def test_paths_past_the_command_lines_limit_find_what_a_pathspec_finds(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#32: past MAX_PATHSPEC_BYTES the log of every deletion is read and sorted out here;
    the answer is the one git's pathspec gives (forced here with a budget of one byte)."""
    from kenso_git.repo import moves

    _history_of_moves(repo)
    ws = find_workspace(repo)
    by_pathspec = find_moves(ws, ASKED, _exists(repo))
    monkeypatch.setattr(moves, "MAX_PATHSPEC_BYTES", 1)
    monkeypatch.setattr(moves, "MAX_COMMIT_ARGS", 1)
    assert find_moves(ws, ASKED, _exists(repo)) == by_pathspec
    assert by_pathspec.moved["one.md"].new == "three.md"
    assert by_pathspec.moved["guides"].new == "handbook"
    assert set(by_pathspec.deleted) == {"gone.md", "src/old", "src"}


def test_twenty_thousand_missing_paths_are_asked_without_an_error(repo: Path) -> None:
    """#32: lint of a 20,000-doc tree named every missing link target on git's command line
    and got `Argument list too long`: moved targets were then reported as missing."""
    _history_of_moves(repo)
    folder = "dotnet-desktop-guide/winforms/advanced/how-to-draw-a-line-filled-with-a-texture"
    many = {f"packages/p{i % 60:03d}/{folder}-{i:05}.md" for i in range(20_000)}  # 2.1 MB
    found = find_moves(find_workspace(repo), many | {"one.md", "gone.md"}, _exists(repo))
    assert found.moved["one.md"].new == "three.md"
    assert set(found.deleted) == {"gone.md"}


def test_a_path_renamed_to_another_missing_path_asked_too_goes_where_that_one_went(
    repo: Path,
) -> None:
    # one.md -> two.md -> three.md, and both one.md and two.md are missing link targets:
    # one.md went to three.md (it was left neither moved nor deleted, a plain dead link)
    _history_of_moves(repo)
    found = find_moves(find_workspace(repo), {"one.md", "two.md"}, _exists(repo))
    assert found.moved["two.md"].new == "three.md"
    assert (found.moved["one.md"].new, found.moved["one.md"].via) == ("three.md", ("two.md",))
