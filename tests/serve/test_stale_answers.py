"""Every answer the query-time sync could not make fresh says `stale`, with the reason (#26)."""

from __future__ import annotations

import shutil
from pathlib import Path

from kenso_git.index.refresh import MAX_QUERY_SYNC_FILES
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import fail_next_ingest
from tests.helpers import init_repo
from tests.helpers import write


def _service(tmp_path: Path) -> tuple[Path, Service]:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "zeppelin words. " * 20)})
    KnowledgeBase.open(root).ingest()
    return root, Service(root)


def test_search_tools_flag_an_answer_past_the_query_sync_cap(tmp_path: Path) -> None:
    root, service = _service(tmp_path)
    write(
        root,
        {f"docs/n{i}.md": doc(f"N {i}", "zeppelin. ") for i in range(MAX_QUERY_SYNC_FILES + 1)},
    )
    replies = [
        service.search_docs("zeppelin", None, 5)[1],
        service.search_multi(["zeppelin", "alpha"], None, 5)[1],
        service.search("zeppelin")[1],
    ]
    for structured in replies:
        assert structured.get("stale") is True, structured
        assert "more than a query syncs" in str(structured.get("stale_reason"))


def test_search_tools_flag_an_answer_whose_sync_failed(tmp_path: Path) -> None:
    root, service = _service(tmp_path)
    fail_next_ingest(root / ".kenso" / "docs.db")
    write(root, {"docs/b.md": doc("Beta", "zeppelin again. " * 20)})
    _, structured = service.search_docs("zeppelin", None, 5)
    assert structured.get("stale") is True
    assert "sync failed" in str(structured.get("stale_reason"))


def test_a_fresh_answer_has_no_stale_key(tmp_path: Path) -> None:
    root, service = _service(tmp_path)
    write(root, {"docs/b.md": doc("Beta", "zeppelin again. " * 20)})
    _, structured = service.search_docs("zeppelin", None, 5)
    assert "stale" not in structured
    assert {r["file_path"] for r in structured["results"]} == {"docs/a.md", "docs/b.md"}


def test_an_index_whose_root_is_gone_says_stale_without_naming_that_root(tmp_path: Path) -> None:
    """`serve --db X` where X's root was moved: the answer says stale, and the agent is not
    told where on the host the old root was (#26, #27's rule for host paths)."""
    old = tmp_path / "old-home" / "handbook"
    write(old, {"guide.md": doc("Guide", "zeppelin words. " * 20)})
    db = tmp_path / "x.db"
    KnowledgeBase.open(old, db=str(db), rooting=True).ingest()
    shutil.rmtree(old)
    here = init_repo(tmp_path / "here", {"docs/a.md": doc("A", "other words. " * 20)})
    _, structured = Service(here, db=str(db)).search_docs("zeppelin", None, 5)
    assert structured.get("stale") is True
    assert "old-home" not in str(structured.get("stale_reason"))
