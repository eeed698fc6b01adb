"""Later pages of the agent tools are slices of one computed list, and cursors across a
change of the index either keep their place (keyset) or say the index changed (ranked)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.pagination import StaleCursorError
from kenso_git.search.regex.regex_search import RegexRequest
from tests.helpers import doc
from tests.helpers import init_repo

PADDING = "These notes carry enough ordinary words for the indexer to keep them.\n"


def _kb(root: Path, n: int = 40) -> KnowledgeBase:
    files = {
        f"notes/n{i:03}.md": doc(f"Note {i}", f"walker word {i}\n\nwalker again {i}\n\n{PADDING}")
        for i in range(n)
    }
    init_repo(root, files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def _traced(kb: KnowledgeBase) -> list[str]:
    statements: list[str] = []

    def trace(conn: sqlite3.Connection) -> None:
        conn.set_trace_callback(statements.append)

    kb.read(trace)
    return statements


@pytest.mark.parametrize("mode", ["ranked", "exhaustive"])
def test_later_pages_do_not_match_the_corpus_again(tmp_path: Path, mode: str) -> None:
    kb = _kb(tmp_path / "repo")
    statements = _traced(kb)
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        page = kb.agent_search(SearchRequest("walker", page_size=5, cursor=cursor, mode=mode))
        seen += [h["path"] for h in page["results"]]
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert len(seen) == len(set(seen)) == 40
    # one match over the whole corpus for eight pages (ranked: one per depth the pages need,
    # 10, 20, then 50 ranked documents); an exhaustive page ranks only its own
    whole = [s for s in statements if "MATCH" in s and "json_each" not in s]
    assert len(whole) == (1 if mode == "exhaustive" else 3)
    assert all("json_each" in s for s in statements if "bm25" in s) or mode == "ranked"


def test_a_ranked_cursor_after_a_change_says_so_and_a_keyset_one_keeps_its_place(
    tmp_path: Path,
) -> None:
    kb = _kb(tmp_path / "repo")
    ranked = kb.agent_search(SearchRequest("walker", page_size=5))
    listed = kb.agent_search(SearchRequest("walker", page_size=5, mode="exhaustive"))
    assert listed["results"][-1]["path"] == "notes/n004.md"
    (tmp_path / "repo" / "notes" / "a-first.md").write_text(f"# First\n\nwalker new\n\n{PADDING}")
    kb.sync()
    with pytest.raises(StaleCursorError, match="index changed") as caught:
        kb.agent_search(SearchRequest("walker", page_size=5, cursor=ranked["next_cursor"]))
    assert caught.value.hint is not None and "omit cursor" in caught.value.hint
    after = kb.agent_search(
        SearchRequest("walker", page_size=5, mode="exhaustive", cursor=listed["next_cursor"])
    )
    assert after["results"][0]["path"] == "notes/n005.md"
    # the new document is found: nothing of the older index generation is served
    assert "notes/a-first.md" in [
        h["path"] for h in kb.agent_search(SearchRequest("walker", page_size=50))["results"]
    ]


def test_a_regex_cursor_resumes_at_its_line_when_earlier_docs_go(tmp_path: Path) -> None:
    kb = _kb(tmp_path / "repo", n=10)
    first = kb.agent_search(RegexRequest(r"^walker \w+ \d+$", page_size=5))
    got = [(h["path"], h["line"]) for h in first["results"]]
    assert first["has_more"] and got[-1] == ("notes/n002.md", 3)
    for i in range(2):  # documents before the cursor vanish
        (tmp_path / "repo" / "notes" / f"n{i:03}.md").unlink()
    kb.sync()
    second = kb.agent_search(
        RegexRequest(r"^walker \w+ \d+$", page_size=5, cursor=first["next_cursor"])
    )
    assert [(h["path"], h["line"]) for h in second["results"]] == [
        ("notes/n002.md", 5),
        ("notes/n003.md", 3),
        ("notes/n003.md", 5),
        ("notes/n004.md", 3),
        ("notes/n004.md", 5),
    ]
    assert second["total"] == 11 and second["total_is_lower_bound"]
