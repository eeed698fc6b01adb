"""The HEAD a sync records is one whose docs the index holds: read under the write lock,
before any doc, and again after the last one (a checkout, commit or rebase between the two
leaves no claim, and the lock holder syncs again)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.index.build import run_index
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from tests.helpers import branched_repo
from tests.helpers import doc
from tests.helpers import git
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import index_dump


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {
        f"docs/d{i}.md": doc(f"Doc {i}", f"Body {i} words.\n") for i in range(30)
    }
    banana = {"docs/banana.md": doc("Banana", "Bananas grow on plantations.\n")}
    return branched_repo(tmp_path / "repo", files, "feat", banana)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def as_of(root: Path) -> str | None:
    kb = KnowledgeBase.open(root)
    try:
        return kb.state().as_of
    finally:
        kb.close()


def test_a_sync_whose_head_moved_before_the_lock_looks_at_everything(
    repo: Path, tmp_path: Path
) -> None:
    # before: a hook's sync read HEAD, waited for the lock while git checked out feat and
    # then a commit added durian, synced only the paths it was given (banana) and recorded
    # the HEAD it read first: main's, with feat's banana in the index
    main = head(repo)
    git(repo, "checkout", "-q", "feat")
    (repo / "docs/durian.md").write_text(doc("Durian", "Durian smells strongly.\n"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "durian")
    kb = KnowledgeBase.open(repo)
    run_index(kb.workspace, kb.settings, kb.db_path, head=main, only=["docs/banana.md"])
    kb.close()
    assert as_of(repo) == head(repo)
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


def test_a_head_that_moves_while_the_docs_are_read_is_not_claimed(
    repo: Path, tmp_path: Path
) -> None:
    # before: the sync recorded the HEAD it saw before reading, though a commit (here an
    # empty one; a rebase's checkout in the field) moved HEAD while it read the docs
    for i in range(30):
        (repo / f"docs/d{i}.md").write_text(doc(f"Doc {i}", f"Edited body {i} words.\n"))
    moved: list[str] = []

    def commit_meanwhile(done: int, _total: int) -> None:
        if not moved:
            git(repo, "commit", "-q", "--allow-empty", "-m", f"meanwhile {done}")
            moved.append(head(repo))

    kb = KnowledgeBase.of_workspace(find_workspace(repo))
    report = kb.sync(progress=commit_meanwhile)
    kb.close()
    assert moved, "the sync read no 25 docs"
    assert report.head is None  # this run claims no HEAD; the rerun under its lock does
    assert as_of(repo) == moved[0] == head(repo)
    assert index_dump(repo) == fresh_dump(repo, tmp_path)
