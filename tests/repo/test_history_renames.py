"""repo/history.py: a doc's commits follow it through renames made in the range and in the
work tree (staged, unstaged, or a delete plus an untracked copy), and `:/text` revisions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.repo import history
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

LONG = "\n".join(f"line {i} of a page long enough for rename detection" for i in range(40))


def _changes(root: Path, since: str, until: str | None = None):
    ws = find_workspace(root)
    old = history.resolve_revision(ws, since)
    new = None if until is None else history.resolve_revision(ws, until)
    return {c.path: c for c in history.changes(ws, old, new, is_doc=lambda _p: True)}


def _renamed_then_edited(repo: Path) -> str:
    """v1 has docs/a.md; committed after it: a.md renamed to alpha.md, alpha.md edited."""
    write(repo, {"docs/a.md": LONG, "docs/other.md": "other\n"})
    commit_all(repo, "base")
    git(repo, "tag", "v1")
    git(repo, "mv", "docs/a.md", "docs/alpha.md")
    commit_all(repo, "rename a")
    write(repo, {"docs/alpha.md": LONG + "\nedited\n"})
    return commit_all(repo, "edit alpha")


def _git_mv(repo: Path) -> None:
    git(repo, "mv", "docs/alpha.md", "docs/omega.md")


def _git_mv_and_edit(repo: Path) -> None:
    git(repo, "mv", "docs/alpha.md", "docs/omega.md")
    write(repo, {"docs/omega.md": LONG + "\nedited\nand edited again\n"})


def _plain_mv(repo: Path) -> None:  # git sees a deleted file and an untracked one
    shutil.move(repo / "docs/alpha.md", repo / "docs/omega.md")


def _plain_mv_new_file_staged(repo: Path) -> None:  # the new name added, the old not removed
    shutil.move(repo / "docs/alpha.md", repo / "docs/omega.md")
    git(repo, "add", "docs/omega.md")


@pytest.mark.parametrize("move", [_git_mv, _git_mv_and_edit, _plain_mv, _plain_mv_new_file_staged])
def test_a_rename_in_the_work_tree_keeps_the_commits_of_the_range(repo: Path, move) -> None:
    last = _renamed_then_edited(repo)
    before = _changes(repo, "v1")["docs/alpha.md"]
    assert (before.status, before.old_path, before.commits) == ("renamed", "docs/a.md", 2)

    move(repo)
    found = _changes(repo, "v1")

    assert set(found) == {"docs/omega.md"}
    omega = found["docs/omega.md"]
    assert (omega.status, omega.old_path) == ("renamed", "docs/a.md")
    assert omega.commits == 2
    assert omega.last_commit is not None and omega.last_commit.id == last
    assert omega.uncommitted


def test_a_rename_in_the_work_tree_of_a_doc_the_range_left_alone_has_no_commits(
    repo: Path,
) -> None:
    write(repo, {"docs/a.md": LONG})
    commit_all(repo, "base")
    shutil.move(repo / "docs/a.md", repo / "docs/b.md")

    found = _changes(repo, "HEAD")

    assert set(found) == {"docs/b.md"}
    assert (found["docs/b.md"].status, found["docs/b.md"].old_path) == ("renamed", "docs/a.md")
    assert found["docs/b.md"].commits == 0 and found["docs/b.md"].last_commit is None
    assert found["docs/b.md"].uncommitted


def test_an_untracked_doc_no_deletion_pairs_with_stays_added(repo: Path) -> None:
    write(repo, {"docs/a.md": LONG})
    commit_all(repo, "base")
    git(repo, "rm", "-q", "docs/a.md")
    write(repo, {"docs/new.md": "a page of its own, like nothing deleted\n"})

    found = _changes(repo, "HEAD")

    assert found["docs/a.md"].status == "deleted"
    assert found["docs/new.md"].status == "added" and found["docs/new.md"].uncommitted
    assert git(repo, "status", "--porcelain", "-uall").splitlines() == [
        "D  docs/a.md",
        "?? docs/new.md",
    ]


@pytest.mark.parametrize("how", ["git rm", "rm"])
def test_a_doc_deleted_in_the_work_tree_keeps_the_commits_made_under_its_later_name(
    repo: Path, how: str
) -> None:
    last = _renamed_then_edited(repo)
    if how == "git rm":
        git(repo, "rm", "-q", "docs/alpha.md")
    else:
        (repo / "docs/alpha.md").unlink()

    found = _changes(repo, "v1")

    assert set(found) == {"docs/a.md"}
    gone = found["docs/a.md"]
    assert gone.status == "deleted" and gone.uncommitted
    assert gone.commits == 2
    assert gone.last_commit is not None and gone.last_commit.id == last


def test_a_doc_renamed_then_deleted_in_the_range_counts_every_commit(repo: Path) -> None:
    _renamed_then_edited(repo)
    git(repo, "rm", "-q", "docs/alpha.md")
    deleting = commit_all(repo, "delete alpha")

    found = _changes(repo, "v1", "HEAD")

    assert set(found) == {"docs/a.md"}
    assert found["docs/a.md"].status == "deleted"
    assert found["docs/a.md"].commits == 3
    last = found["docs/a.md"].last_commit
    assert last is not None and last.id == deleting


def test_a_name_used_again_after_a_delete_keeps_the_two_docs_apart(repo: Path) -> None:
    write(repo, {"a.md": LONG})
    commit_all(repo, "base")
    git(repo, "tag", "v1")
    git(repo, "rm", "-q", "a.md")
    deleting = commit_all(repo, "delete a")
    write(repo, {"a.md": "a new page, nothing like the old one\n"})
    commit_all(repo, "a new a")
    git(repo, "mv", "a.md", "z.md")
    commit_all(repo, "move the new a")

    found = _changes(repo, "v1", "HEAD")

    assert found["a.md"].status == "deleted"
    assert found["a.md"].commits == 1
    assert found["a.md"].last_commit is not None and found["a.md"].last_commit.id == deleting
    assert found["z.md"].status == "added" and found["z.md"].commits == 2


def test_a_work_tree_rename_leaves_gits_index_as_it_was(repo: Path) -> None:
    _renamed_then_edited(repo)
    _plain_mv(repo)
    index = (repo / ".git/index").read_bytes()

    _changes(repo, "v1")

    assert (repo / ".git/index").read_bytes() == index
    assert git(repo, "status", "--porcelain", "-uall").splitlines() == [
        " D docs/alpha.md",
        "?? docs/omega.md",
    ]


def test_a_work_tree_rename_runs_none_of_the_repositorys_hooks(repo: Path) -> None:
    """The copy of git's index is written by `git add`, which runs `post-index-change`:
    reading what changed must not run the user's hooks (husky's, a team's)."""
    _renamed_then_edited(repo)
    _plain_mv(repo)
    hook = repo / ".git/hooks/post-index-change"
    hook.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../../ran"\n', encoding="utf-8")
    hook.chmod(0o755)

    assert _changes(repo, "v1")["docs/omega.md"].commits == 2

    assert not (repo / "ran").exists()


def _messages(repo: Path) -> dict[str, str]:
    write(repo, {"a.md": "a\n"})
    first = commit_all(repo, "first: zebra page")
    git(repo, "tag", "-a", "-m", "release", "v1")
    write(repo, {"a.md": "b\n"})
    second = commit_all(repo, "second: rename the --output=x option")
    return {"first": first, "second": second}


def test_a_commit_message_search_names_a_commit(repo: Path) -> None:
    ids = _messages(repo)
    ws = find_workspace(repo)

    assert history.resolve_revision(ws, ":/zebra") == ids["first"]
    assert history.resolve_revision(ws, ":/--output=x") == ids["second"]
    assert history.resolve_revision(ws, ":/^second") == ids["second"]
    assert history.resolve_revision(ws, "HEAD^{/zebra}") == ids["first"]
    assert history.resolve_revision(ws, "v1") == ids["first"]  # an annotated tag, peeled


def test_a_message_search_nothing_matches_is_an_unknown_revision(repo: Path) -> None:
    _messages(repo)

    with pytest.raises(UsageError, match="unknown revision ':/no such words'") as caught:
        history.resolve_revision(find_workspace(repo), ":/no such words")

    assert caught.value.hint


@pytest.mark.parametrize(
    ("rev", "kind"), [("HEAD^{tree}", "tree"), ("HEAD:a.md", "blob"), (":/zebra:a.md", None)]
)
def test_a_revision_of_a_tree_or_a_file_is_refused_as_not_a_commit(
    repo: Path, rev: str, kind: str | None
) -> None:
    _messages(repo)

    with pytest.raises(UsageError) as caught:
        history.resolve_revision(find_workspace(repo), rev)

    if kind is None:  # all after `:/` is the message's pattern, and none matches
        assert caught.value.message.startswith("unknown revision")
    else:
        assert caught.value.message.startswith(f"not a commit: {rev!r} names a {kind}")
        assert "REV:path" in (caught.value.hint or "")
