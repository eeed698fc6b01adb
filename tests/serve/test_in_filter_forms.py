"""`in:./docs` (and `in:docs/./guide`) passed the scope gate, which reads the path as a
shell does, but the filter compared the text as written, so it matched nothing. The folder
is now normalised as the gate normalises it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.conftest import structured_call

pytestmark = pytest.mark.anyio


async def _paths(repo: Path, query: str) -> list[str]:
    failed, body = await structured_call(repo, "search", {"query": query})
    assert not failed, body
    return sorted({hit["path"] for hit in body["results"]})


@pytest.mark.parametrize("written", ["./docs", "docs/.", "./docs/", "docs//"])
async def test_in_with_a_dot_or_doubled_slash_names_the_folder(repo: Path, written: str) -> None:
    plain = await _paths(repo, "in:docs deploy")
    assert plain, "the fixture's docs/ must match the query"
    assert await _paths(repo, f"in:{written} deploy") == plain
