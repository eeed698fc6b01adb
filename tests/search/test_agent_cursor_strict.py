"""A hand-edited cursor is refused, never read leniently. `int(offset, 16)` took `-3`: the
page was empty with has_more true and the same cursor again, so a client following
next_cursor looped forever; a ranked cursor with its index stamp left out skipped the
"index changed" check and was served after an edit. Through the real MCP SDK client."""

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

REFUSED = "is not a next_cursor of this request"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {
        f"docs/note{i:02}.md": (
            f"# Binding note {i}\n\nData binding note number {i} explains how a binding "
            "connects data to a control.\n"
        )
        for i in range(12)
    }
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, {"page_size": 3, **args})
    return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]


def _fields(cursor: str) -> tuple[str, str, str]:
    """(offset, stamp, check) of a ranked cursor `k1-<offset>.<stamp>-<check>`."""
    body, _, check = cursor[len("k1-") :].rpartition("-")
    offset, _, stamp = body.partition(".")
    return offset, stamp, check


def _assert_refused(failed: bool, body: Any, cursor: str) -> None:
    assert failed, body
    assert body["error"] == f"cursor {cursor!r} {REFUSED}"
    assert "omit cursor to start again" in body["hint"]


@pytest.mark.parametrize(
    "offset",
    ["-3", "-1", "+3", " 3", "03", "0x3", "0_3", "3 ", "0", "2710", "ffffffff", "3A", ""],
)
async def test_a_ranked_cursor_with_an_edited_offset_is_refused(repo: Path, offset: str) -> None:
    async with Client(build_server(Service(repo))) as client:
        failed, first = await _call(client, "search", {"query": "binding"})
        assert not failed and first["next_cursor"].startswith("k1-3.")
        _, stamp, check = _fields(first["next_cursor"])
        edited = f"k1-{offset}.{stamp}-{check}"
        failed, body = await _call(client, "search", {"query": "binding", "cursor": edited})
    # before: -3 gave an empty page, has_more true and next_cursor the same cursor again;
    # +3, 03, 0x3 ... read as 3; 0 and past the 10,000 cap were served too
    _assert_refused(failed, body, edited)


async def test_a_ranked_cursor_without_its_index_stamp_is_refused_after_an_edit(
    repo: Path,
) -> None:
    async with Client(build_server(Service(repo))) as client:
        _, first = await _call(client, "search", {"query": "binding"})
        offset, _, check = _fields(first["next_cursor"])
        unstamped = f"k1-{offset}-{check}"
        with (repo / "docs/note05.md").open("a", encoding="utf-8") as f:
            f.write("\nExtra binding text, binding binding.\n")
        failed, stale = await _call(
            client, "search", {"query": "binding", "cursor": first["next_cursor"]}
        )
        assert failed and "was issued before the index changed" in stale["error"]
        failed, body = await _call(client, "search", {"query": "binding", "cursor": unstamped})
    _assert_refused(failed, body, unstamped)  # before: served 3 hits of the new ranking


async def test_following_next_cursor_ends_and_lists_every_match_once(repo: Path) -> None:
    seen: list[str] = []
    async with Client(build_server(Service(repo))) as client:
        cursor = None
        for _ in range(10):
            args = {"query": "binding", **({"cursor": cursor} if cursor else {})}
            failed, page = await _call(client, "search", args)
            assert not failed, page
            seen += [h["path"] for h in page["results"]]
            cursor = page["next_cursor"]
            if not page["has_more"]:
                break
    assert cursor is None and len(seen) == len(set(seen)) == 12


@pytest.mark.parametrize("body", ["646f63 73", "646F6373", "646f637", "+646f6373"])
async def test_an_exhaustive_cursor_with_an_edited_path_is_refused(repo: Path, body: str) -> None:
    args = {"query": "binding", "mode": "exhaustive"}
    async with Client(build_server(Service(repo))) as client:
        _, first = await _call(client, "search", args)
        check = first["next_cursor"].rpartition("-")[2]
        edited = f"k2-{body}-{check}"
        failed, page = await _call(client, "search", {**args, "cursor": edited})
    # before: bytes.fromhex skipped the space and took capitals, so these resumed after docs
    _assert_refused(failed, page, edited)


@pytest.mark.parametrize("field", [1, 2])
async def test_a_regex_cursor_with_a_negative_line_or_count_is_refused(
    repo: Path, field: int
) -> None:
    async with Client(build_server(Service(repo))) as client:
        _, first = await _call(client, "regex_search", {"pattern": "binding"})
        kind_body, _, check = first["next_cursor"].rpartition("-")
        parts = kind_body[len("k3-") :].split(".")
        parts[field] = "-" + parts[field]
        edited = f"k3-{'.'.join(parts)}-{check}"
        failed, page = await _call(client, "regex_search", {"pattern": "binding", "cursor": edited})
    assert failed, page  # before: a negative line re-listed the document, a count went negative
    assert page["error"] == f"cursor {edited!r} {REFUSED}"
