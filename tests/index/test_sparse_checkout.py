"""`git sparse-checkout` fires no hook and `git status` never lists the skip-worktree
entries it leaves: once the index held a git mark, a doc the sparse checkout took off the
disk stayed in the index (and `sync` called it unchanged), and a doc it put back was never
indexed again until `ingest`. The patterns and the switch are part of the mark's rules now,
so the next check or sync after a change walks once."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.errors import DocumentNotFoundError
from kenso_git.index import gitprobe
from kenso_git.kb import KnowledgeBase
from kenso_git.store.meta import read_meta
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo

DOCS = {
    "docs/a.md": doc("Alpha", "Alpha is a page about zebras and walruses, long enough to index.\n"),
    "guide/g.md": doc("Guide", "The guide is a page about lynxes, long enough to be indexed.\n"),
}


def _marked(root: Path) -> KnowledgeBase:
    init_repo(root, DOCS)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.sync()  # the first sync after an ingest may walk; it leaves the mark
    assert gitprobe.read_mark(kb.read(read_meta)) is not None
    return kb


def _hits(kb: KnowledgeBase, word: str) -> list[str]:
    return [hit.file_path for hit in kb.search(word).hits]


def _indexed(kb: KnowledgeBase) -> list[str]:
    return sorted(row[0] for row in kb.read(lambda c: c.execute("SELECT path FROM files")))


@pytest.mark.parametrize("step", ["query", "sync"])
def test_the_index_follows_the_docs_a_sparse_checkout_removes_and_restores(
    tmp_path: Path, step: str
) -> None:
    kb = _marked(tmp_path / "repo")
    root = kb.workspace.root
    git(root, "sparse-checkout", "set", "docs")
    assert not (root / "guide/g.md").exists()
    if step == "sync":
        assert kb.sync().count("removed") == 1
    assert _hits(kb, "lynxes") == []
    assert _indexed(kb) == ["docs/a.md"]

    git(root, "sparse-checkout", "disable")
    assert (root / "guide/g.md").exists()
    if step == "sync":
        assert kb.sync().count("ingested") == 1
    assert _hits(kb, "lynxes") == ["guide/g.md"]
    assert "lynxes" in kb.get_doc("guide/g.md")["content"]
    assert kb.state().stale is False


def test_a_doc_outside_the_new_cone_is_no_longer_served(tmp_path: Path) -> None:
    kb = _marked(tmp_path / "repo")
    git(kb.workspace.root, "sparse-checkout", "set", "docs")
    with pytest.raises(DocumentNotFoundError):
        kb.get_doc("guide/g.md")
