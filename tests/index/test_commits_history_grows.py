"""index/commits.py: when a shallow clone's history grows, the pages its cut dated are dated
again (a `git fetch --unshallow` or `--deepen` moves neither HEAD nor any blob)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import doccommits
from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import doc

__all__ = ["fixed_git_identity"]  # fixtures


def _subject(kb: KnowledgeBase, path: str) -> object:
    age = kb.read(lambda conn: doccommits.read(conn, [path]))[path].to_dict()
    last = age.get("last_commit")
    return last.get("subject") if isinstance(last, dict) else age


def _git_says(root: Path, path: str) -> str:
    return git(root, "log", "-1", "--format=%s", "--", path).strip()


@pytest.fixture
def shallow(tmp_path: Path) -> Path:
    """A `--depth 1` clone of four commits, c1..c4, each adding one page."""
    src = tmp_path / "src"
    src.mkdir()
    git(src, "init", "-q")
    for i in range(1, 5):
        write(src, {f"docs/p{i}.md": doc(f"Page{i}")})
        commit_all(src, f"c{i}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{src}", str(clone))
    return clone


def test_unshallow_then_sync_dates_each_page_by_its_own_commit(shallow: Path) -> None:
    kb = KnowledgeBase.open(shallow)
    kb.ingest()
    assert _subject(kb, "docs/p1.md") == "c4"  # as git says of a shallow clone

    git(shallow, "fetch", "-q", "--unshallow")
    kb.sync()

    assert [_subject(kb, f"docs/p{i}.md") for i in range(1, 5)] == ["c1", "c2", "c3", "c4"]
    assert _git_says(shallow, "docs/p1.md") == "c1"


def test_a_deepened_clone_dates_the_pages_by_its_new_cut(shallow: Path) -> None:
    kb = KnowledgeBase.open(shallow)
    kb.ingest()

    git(shallow, "fetch", "-q", "--deepen=1")
    kb.ingest()

    expected = [_git_says(shallow, f"docs/p{i}.md") for i in range(1, 5)]
    assert expected == ["c3", "c3", "c3", "c4"]
    assert [_subject(kb, f"docs/p{i}.md") for i in range(1, 5)] == expected


def test_a_page_changed_after_the_cut_keeps_its_commit(shallow: Path) -> None:
    write(shallow, {"docs/p2.md": doc("Page2", "Page two rewritten after the clone was made.")})
    commit_all(shallow, "c5: page two")
    kb = KnowledgeBase.open(shallow)
    kb.ingest()

    git(shallow, "fetch", "-q", "--unshallow")
    kb.sync()

    assert _subject(kb, "docs/p2.md") == "c5: page two"
    assert _subject(kb, "docs/p1.md") == "c1"


def test_a_query_after_an_unshallow_dates_the_pages_again(shallow: Path) -> None:
    """`git fetch` fires no hook: the query-time check sees the `shallow` file change."""
    kb = KnowledgeBase.open(shallow)
    kb.ingest()
    kb.sync()  # leaves the git mark a no-change check goes by
    assert _subject(kb, "docs/p1.md") == "c4"

    git(shallow, "fetch", "-q", "--unshallow")
    assert [h.file_path for h in kb.search("Page1").hits][:1] == ["docs/p1.md"]

    assert [_subject(kb, f"docs/p{i}.md") for i in range(1, 5)] == ["c1", "c2", "c3", "c4"]
