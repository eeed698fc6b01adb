"""The `search` tool's `path`, `ext` and `modified_after` stand for filters appended to the
query; the text they made together was held to the query's 2,000 characters, so an
over-long `modified_after` or `ext` was reported as "bad query token 'deploy modified:999…'
at column 1: the query is longer than 2000 characters" (a token the caller never wrote),
and a `path` over ~1,990 characters failed so although paths may have 4,096. Each argument
now has its own limit, named in its error, and stands for exactly one filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.conftest import structured_call

pytestmark = pytest.mark.anyio


async def _refused(repo: Path, **args: object) -> dict[str, str]:
    failed, body = await structured_call(repo, "search", {"query": "deploy", **args})
    assert failed, body
    return body  # type: ignore[no-any-return]


async def test_an_over_long_modified_after_is_named(repo: Path) -> None:
    body = await _refused(repo, modified_after="9" * 5000 + "d")
    assert body == {
        "error": "modified_after is longer than 32 characters (5,001)",
        "hint": "pass a lookback such as 7d or 12h, or a date such as 2026-01-31",
    }


async def test_an_over_long_ext_is_named(repo: Path) -> None:
    body = await _refused(repo, ext="x" * 3000)
    assert body == {
        "error": "ext is longer than 32 characters (3,000)",
        "hint": "pass one extension, such as md or .mdx",
    }


@pytest.mark.parametrize("chars", [2100, 4000])
async def test_a_path_within_the_documented_4096_characters_is_taken(
    repo: Path, chars: int
) -> None:
    parts = ["docs"] + ["f" * 99] * ((chars - 4) // 100)
    path = "/".join(parts)
    assert chars - 100 < len(path) <= chars
    failed, body = await structured_call(repo, "search", {"query": "deploy", "path": path})
    assert not failed, body  # before: "... the query is longer than 2000 characters"
    assert body["results"] == []


async def test_a_value_that_is_not_one_filter_is_named(repo: Path) -> None:
    body = await _refused(repo, ext="md private")
    assert body["error"] == "ext 'md private' is not one value"  # before: a word "private"
    body = await _refused(repo, modified_after="soon")
    assert body == {
        "error": "modified_after 'soon' cannot be read: not a window or a date",
        "hint": "use a lookback such as modified:7d, modified:12h, or a date modified:2026-01-31",
    }


async def test_the_query_itself_keeps_its_2000_characters(repo: Path) -> None:
    args = {"path": "docs", "ext": "md", "modified_after": "3650d"}
    failed, body = await structured_call(repo, "search", {"query": "canary " + "a" * 1993})
    assert not failed, body  # 2,000 characters: taken
    failed, body = await structured_call(repo, "search", {"query": "canary " + "a" * 1993, **args})
    assert not failed, body  # before: the arguments' filters pushed it over
    assert [h["path"] for h in body["results"]] == ["docs/deploy.md"]
    failed, body = await structured_call(repo, "search", {"query": "canary " + "a" * 1994, **args})
    assert failed
    assert body["error"] == (
        "bad query token 'canary aaaaaaaaaaaaa' at column 1: "
        "the query is longer than 2000 characters"
    )
