"""The query-time sync drops the docs ingest would skip now: those of a folder that became a
nested repository (`git init a`) or an environment folder (`a/pyvenv.cfg`) after they were
indexed. git lists none of them (a tracked file stays clean to git), so a check by git's
list alone kept them, and only a walk (`kenso-git sync` without a mark) removed them;
removing the marker brings them back (tester's report t47b, defect 2)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kenso_git.index import refresh
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo

WORD = "hubcanary"
FILL = "These words make the page long enough to be indexed as a document of its own. " * 3


def _repo(root: Path, hidden: int = 2) -> Path:
    files = {
        "docs/start.md": doc("Start", f"The start page.\n\n{FILL}"),
        **{f"a/sub/p{i}.md": doc(f"Page {i}", f"A {WORD} page.\n\n{FILL}") for i in range(hidden)},
    }
    init_repo(root, files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.sync()  # the first sync after an ingest may walk; it leaves the mark
    return root


def _mark(root: Path, marker: str) -> None:
    if marker == "nested":
        subprocess.run(["git", "init", "-q", str(root / "a")], check=True)
    else:
        (root / "a" / marker).write_text("home = /usr/bin\n", encoding="utf-8")


def _found(kb: KnowledgeBase) -> list[str]:
    return sorted(h.file_path for h in kb.search(WORD, limit=500).hits)


@pytest.mark.parametrize("marker", ["nested", "pyvenv.cfg"])
def test_a_check_drops_the_docs_of_a_folder_that_became_foreign(
    tmp_path: Path, marker: str
) -> None:
    root = _repo(tmp_path / "repo")
    kb = KnowledgeBase.open(root)
    assert _found(kb) == ["a/sub/p0.md", "a/sub/p1.md"]
    _mark(root, marker)
    assert _found(kb) == []  # this call's own check dropped them: no gate at this level
    state = kb.state()
    assert (state.documents, state.stale) == (1, False)
    if marker == "nested":
        shutil.rmtree(root / "a" / ".git")
    else:
        (root / "a" / marker).unlink()
    assert _found(kb) == ["a/sub/p0.md", "a/sub/p1.md"]  # the folder is the project's again
    assert kb.state().documents == 3


def test_a_server_started_afterwards_drops_them_at_its_first_check(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    _mark(root, "nested")
    refresh._folders.clear()  # what an earlier check of this process remembers: nothing
    kb = KnowledgeBase.open(root)
    assert _found(kb) == []
    assert kb.state().documents == 1


def test_a_check_that_syncs_a_moved_head_whole_drops_them_too(tmp_path: Path) -> None:
    """HEAD moved past the mark: the check's sync is a whole, walk-free one, which looks
    only at what git lists; the docs git does not list are dropped in the same call."""
    root = _repo(tmp_path / "repo")
    kb = KnowledgeBase.open(root)
    assert len(_found(kb)) == 2
    (root / "other.txt").write_text("not a doc\n", encoding="utf-8")
    git(root, "add", "other.txt")
    git(root, "commit", "-qm", "move HEAD")
    _mark(root, "nested")
    assert _found(kb) == []


def test_more_docs_than_a_query_syncs_are_still_dropped(tmp_path: Path) -> None:
    """Dropping reads no doc: a folder of more docs than a query syncs (200) is dropped by
    the query's check, not left stale for a walk that no later sync makes."""
    root = _repo(tmp_path / "repo", hidden=refresh.MAX_QUERY_SYNC_FILES + 5)
    kb = KnowledgeBase.open(root)
    _mark(root, "pyvenv.cfg")
    assert _found(kb) == []
    state = kb.state()
    assert (state.documents, state.stale) == (1, False)


def test_after_the_drop_the_work_tree_is_not_said_to_differ_from_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD tracks the dropped docs, which ingest skips: they are no difference (as docs of
    an environment folder were not), for a reader that works it out from HEAD's listing."""
    root = _repo(tmp_path / "repo")
    _mark(root, "nested")
    assert _found(KnowledgeBase.open(root)) == []  # dropped by the check's targeted sync
    monkeypatch.setenv("KENSO_QUERY_SYNC", "0")  # no check: `state` asks HEAD itself
    state = KnowledgeBase.open(root).state()
    assert state.documents == 1
    assert state.worktree_differs is False


def test_they_come_back_with_the_marker_gone_after_a_new_mark_forgot_them(
    tmp_path: Path,
) -> None:
    """After the drop, a commit makes the next check sync whole and leave a new mark, which
    lists none of the dropped docs (git lists none): the check's own memory of the folder
    brings them back when the marker goes."""
    root = _repo(tmp_path / "repo")
    kb = KnowledgeBase.open(root)
    _mark(root, "pyvenv.cfg")
    assert _found(kb) == []
    (root / "other.txt").write_text("not a doc\n", encoding="utf-8")
    git(root, "add", "other.txt")
    git(root, "commit", "-qm", "move HEAD")
    assert _found(kb) == []  # a whole sync: a new mark
    (root / "a" / "pyvenv.cfg").unlink()
    assert _found(kb) == ["a/sub/p0.md", "a/sub/p1.md"]
