"""index/commits.py: each indexed doc's last commit, kept by the writers (#29)."""

from __future__ import annotations

from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store import doccommits
from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity
from tests.gitrepo import git
from tests.gitrepo import repo
from tests.gitrepo import write
from tests.helpers import doc

__all__ = ["fixed_git_identity", "repo"]  # fixtures


def _ages(kb: KnowledgeBase, *paths: str) -> dict[str, dict[str, object]]:
    found = kb.read(lambda conn: doccommits.read(conn, paths))
    return {p: c.to_dict() for p, c in found.items()}


def _commit(kb: KnowledgeBase, path: str) -> str | None:
    age = _ages(kb, path)[path]
    last = age.get("last_commit")
    return last["id"] if isinstance(last, dict) else None  # type: ignore[return-value]


def test_ingest_keeps_the_commit_that_made_each_doc(repo: Path) -> None:
    write(repo, {"docs/a.md": doc("Alpha"), "docs/b.md": doc("Beta")})
    first = commit_all(repo, "first")
    write(repo, {"docs/b.md": doc("Beta", "Beta was rewritten in the second commit, at length.")})
    second = commit_all(repo, "second: beta")
    kb = KnowledgeBase.open(repo)
    kb.ingest()

    ages = _ages(kb, "docs/a.md", "docs/b.md")

    assert ages["docs/a.md"]["last_commit"] == {"id": first, "time": 1700000000, "subject": "first"}
    assert _commit(kb, "docs/b.md") == second


def test_an_uncommitted_edit_says_so_and_its_commit_is_found_after_it(repo: Path) -> None:
    write(repo, {"docs/a.md": doc("Alpha")})
    commit_all(repo, "first")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    write(repo, {"docs/a.md": doc("Alpha", "Alpha changed in the work tree, not yet committed.")})
    write(repo, {"docs/new.md": doc("Fresh")})
    kb.sync()

    assert _ages(kb, "docs/a.md", "docs/new.md") == {
        "docs/a.md": {"uncommitted": True},
        "docs/new.md": {"uncommitted": True},
    }

    made = commit_all(repo, "commit the edits")
    kb.sync()  # the commit changed no file: the sync sees HEAD move

    assert _commit(kb, "docs/a.md") == made
    assert _commit(kb, "docs/new.md") == made


def test_an_amended_commit_is_named_by_its_new_id(repo: Path) -> None:
    write(repo, {"docs/a.md": doc("Alpha")})
    commit_all(repo, "first")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    write(repo, {"docs/a.md": doc("Alpha", "A second version of the alpha page, with more words.")})
    old = commit_all(repo, "typo in the mesage")
    kb.sync()
    assert _commit(kb, "docs/a.md") == old

    git(repo, "commit", "-q", "--amend", "-m", "a fixed message")
    kb.sync()

    new = git(repo, "rev-parse", "HEAD").strip()
    assert new != old
    assert _commit(kb, "docs/a.md") == new


def test_a_removed_doc_loses_its_row_and_outside_git_there_is_none(
    repo: Path, tmp_path: Path
) -> None:
    write(repo, {"docs/a.md": doc("Alpha"), "docs/b.md": doc("Beta")})
    commit_all(repo, "first")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    (repo / "docs/b.md").unlink()
    kb.sync()

    assert set(_ages(kb, "docs/a.md", "docs/b.md")) == {"docs/a.md"}
    kb_rows = kb.read(lambda conn: conn.execute("SELECT path FROM doc_commits").fetchall())
    assert [tuple(r) for r in kb_rows] == [("docs/a.md",)]

    plain = tmp_path / "plain"
    write(plain, {"a.md": doc("Alpha")})
    outside = KnowledgeBase.open(plain)
    outside.ingest()
    assert _ages(outside, "a.md") == {}


def test_a_change_and_its_revert_between_two_syncs_date_the_doc_by_the_revert(
    repo: Path,
) -> None:
    """The doc's text is the blob it was before, so no sync touched it, and its row kept
    the older commit; `git log -1 -- path` and a fresh ingest name the revert."""
    write(repo, {"docs/a.md": doc("Alpha"), "docs/b.md": doc("Beta")})
    commit_all(repo, "first")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    write(repo, {"docs/a.md": doc("Alpha", "A change that is taken back in the next commit.")})
    commit_all(repo, "change alpha")
    write(repo, {"docs/a.md": doc("Alpha")})
    reverted = commit_all(repo, "revert alpha")
    kb.sync()
    assert _commit(kb, "docs/a.md") == reverted
    assert _ages(kb, "docs/b.md")["docs/b.md"]["last_commit"]["subject"] == "first"  # type: ignore[index]


def test_a_page_dated_on_an_orphan_branch_is_dated_again_back_on_a_real_one(repo: Path) -> None:
    # HEAD unborn (`checkout --orphan`) then back on main: the pages kept the commit of the
    # branch left before, and no sync re-dated them (every re-dating needed both HEADs)
    write(repo, {"docs/one.md": doc("One")})
    made = commit_all(repo, "add one")
    home = git(repo, "branch", "--show-current").strip()
    git(repo, "checkout", "-q", "--orphan", "side")
    side = commit_all(repo, "side root, same files")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    assert _commit(kb, "docs/one.md") == side
    git(repo, "checkout", "-q", "--orphan", "unborn")
    kb.sync()
    assert _ages(kb, "docs/one.md") == {"docs/one.md": {"uncommitted": True}}
    git(repo, "checkout", "-q", home)
    kb.sync()
    assert _commit(kb, "docs/one.md") == made
