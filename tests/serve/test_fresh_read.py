"""A search reads the index while its check's `git status` runs (`Writes.fresh_read`): an
answer the check made stale is read again, with every verdict of the first read dropped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo import gitstatus
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.lang.querylang import QuerySyntaxError
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo


def _save(path: Path, text: str) -> None:
    """An editor's save: a new file renamed over the old one (a new inode)."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def test_a_page_saved_over_is_still_found_by_the_gated_search(tmp_path: Path) -> None:
    """The first read ran before the check synced the save: the gate judged the page by
    the index's old inode and hid it; the second read kept that verdict (found by the
    freshness property test, seed 2)."""
    pages = {f"docs/{n}.md": doc(n.title(), f"The {n} page on falcons. " * 5) for n in "abc"}
    root = init_repo(tmp_path / "repo", pages)
    KnowledgeBase.open(root).ingest()
    service = Service(root)
    _, before = service.search_docs("falcons", None, 10)
    assert {r["file_path"] for r in before["results"]} == {"docs/a.md", "docs/b.md", "docs/c.md"}
    _save(root / "docs/b.md", doc("B", "The rewritten page still on falcons. " * 5))
    _, after = service.search_docs("falcons", None, 10)
    assert "stale" not in after
    assert {r["file_path"] for r in after["results"]} == {"docs/a.md", "docs/b.md", "docs/c.md"}
    hit = next(r for r in after["results"] if r["file_path"] == "docs/b.md")
    assert "rewritten" in hit["content_preview"]


def test_a_read_that_fails_leaves_no_git_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Words enough here. " * 5)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.search("warm")
    started: list[gitstatus.EarlyStatus] = []

    def recording(*args: Any, **kwargs: Any) -> gitstatus.EarlyStatus | None:
        early = real(*args, **kwargs)
        if early is not None:
            started.append(early)
        return early

    real = gitstatus.start_status
    monkeypatch.setattr(gitstatus, "start_status", recording)
    with pytest.raises(QuerySyntaxError):
        kb.agent_search(SearchRequest(query="deploy modified:someday"))
    assert len(started) == 1  # git ran beside the read...
    pid = started[0].run.pid
    assert pid is None  # ...and was stopped and reaped when the read failed
