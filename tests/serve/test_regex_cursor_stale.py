"""A `regex_search` cursor names a (path, line): once its document gains or loses lines
above that line, the line names another place. Paging on returned a hit twice (lines added
above) or passed one over (lines removed); such a cursor is now refused as ranked `search`
refuses a stale one, and edits below the cursor or in other documents page on as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio


def _page(i: int) -> str:
    return (
        f"# Doc {i}\n\nhit one in doc {i} with filler words to index\n\n"
        f"hit two in doc {i}\n\nhit three in doc {i}\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {f"docs/d{i}.md": _page(i) for i in range(3)})
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, args: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool("regex_search", {"pattern": "^hit", "page_size": 2, **args})
    return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]


def _hits(page: Any) -> list[tuple[str, int]]:
    return [(h["path"], h["line"]) for h in page["results"]]


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text(encoding="utf-8"), encoding="utf-8")


async def test_a_cursor_whose_document_gained_lines_above_it_is_refused(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        failed, first = await _call(client, {})
        assert not failed and _hits(first) == [("docs/d0.md", 3), ("docs/d0.md", 5)]
        _prepend(repo / "docs/d0.md", "hit zero inserted at top\n\n")
        failed, body = await _call(client, {"cursor": first["next_cursor"]})
    # before: the next page began with ("docs/d0.md", 7), "hit two" returned a second time
    assert failed, body
    assert body["error"] == (
        f"cursor {first['next_cursor']!r} was issued before docs/d0.md changed at or above "
        "its line 5, so its line no longer names the same place"
    )
    assert body["hint"] == "omit cursor to start the pattern again"


async def test_a_cursor_whose_document_lost_lines_above_it_is_refused(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        _, first = await _call(client, {})
        (repo / "docs/d0.md").write_text(
            "# Doc 0\n\nhit two in doc 0\n\nhit three in doc 0\n", encoding="utf-8"
        )
        failed, body = await _call(client, {"cursor": first["next_cursor"]})
    assert failed and "changed at or above its line 5" in body["error"]  # before: d1 next


async def test_edits_below_the_cursor_and_in_other_documents_page_on(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        _, first = await _call(client, {})
        with (repo / "docs/d0.md").open("a", encoding="utf-8") as f:
            f.write("\nhit four appended below\n")  # after the cursor's line
        _prepend(repo / "docs/d1.md", "hit zero of d1\n\n")  # another document
        seen = _hits(first)
        cursor = first["next_cursor"]
        while cursor:
            failed, page = await _call(client, {"cursor": cursor})
            assert not failed, page
            seen += _hits(page)
            cursor = page["next_cursor"]
    assert seen == [
        ("docs/d0.md", 3),
        ("docs/d0.md", 5),
        ("docs/d0.md", 7),
        ("docs/d0.md", 9),
        ("docs/d1.md", 1),
        ("docs/d1.md", 5),
        ("docs/d1.md", 7),
        ("docs/d1.md", 9),
        ("docs/d2.md", 3),
        ("docs/d2.md", 5),
        ("docs/d2.md", 7),
    ]


@pytest.mark.parametrize(
    ("before", "after", "line", "same"),
    [
        ("a\nb\nc", "a\nb\nc\n", 3, True),  # a break added at the very end
        ("a\nb\nc\n", "a\nb\nc\nd\n", 3, True),  # a line added below
        ("a\nb\nc\n", "a\nb\nC\n", 3, False),  # the cursor's own line
        ("a\nb\nc\n", "x\na\nb\nc\n", 3, False),  # a line added above
        ("a\nb\nc\n", "a\nb\n", 3, False),  # the document now shorter
        ("\n\nc\n", "\n\nc\n", 3, True),
    ],
)
def test_the_lines_digest_covers_the_lines_up_to_the_cursor(
    before: str, after: str, line: int, same: bool
) -> None:
    from kenso_git.search.pagination import LinesDigest

    old = LinesDigest(before.encode()).upto(line)
    assert (LinesDigest(after.encode()).upto(line) == old) is same


def test_the_lines_digest_asked_in_order_is_the_digest_asked_at_once() -> None:
    from kenso_git.search.pagination import LinesDigest

    data = b"# T\n\nhit 1\nhit 2\n\n\nhit 3\nlast"
    stepwise = LinesDigest(data)
    for line in (1, 3, 4, 7, 8, 9):
        assert stepwise.upto(line) == LinesDigest(data).upto(line)
