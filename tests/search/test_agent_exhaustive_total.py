"""Exhaustive `search` pages report the count of every match, as ranked pages do. `total`
was the count after the cursor (12, 7, 2 page by page) and every page after the first said
`total_is_lower_bound: true`, the last one too, though every match had been listed."""

from __future__ import annotations

from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from tests.helpers import init_repo


def test_every_exhaustive_page_reports_the_whole_exact_count(tmp_path: Path) -> None:
    files = {
        f"docs/note{i:02}.md": (
            f"# Binding note {i}\n\nData binding note number {i} explains how a binding "
            "connects data to a control.\n"
        )
        for i in range(12)
    }
    files["docs/other.md"] = "# Other page\n\nNothing of the kind is written on this page.\n"
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    pages = []
    cursor = None
    for _ in range(10):
        page = kb.agent_search(
            SearchRequest("binding", page_size=5, cursor=cursor, mode="exhaustive")
        )
        pages.append((page["returned"], page["total"], page["total_is_lower_bound"]))
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    # before: [(5, 12, False), (5, 7, True), (2, 2, True)]
    assert pages == [(5, 12, False), (5, 12, False), (2, 12, False)]
    assert cursor is None
