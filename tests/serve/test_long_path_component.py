"""A path argument with one name longer than the system allows (ENAMETOOLONG, 255 bytes on
most file systems) made the scope gate's folder test raise, and the tool answered the bare
"Error executing tool: OSError: [Errno 36] File name too long". No folder has such a name,
so the path names nothing: the gate lets it through and the search finds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.conftest import structured_call

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("tool", ["search", "regex_search"])
async def test_a_path_with_a_name_over_the_system_limit_finds_nothing(
    repo: Path, tool: str
) -> None:
    args = {"query": "deploy"} if tool == "search" else {"pattern": "deploy"}
    failed, body = await structured_call(repo, tool, {**args, "path": "docs/" + "x" * 2100})
    assert not failed, body
    assert body["results"] == []
