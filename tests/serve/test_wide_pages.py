"""A UTF-16 or UTF-32 page (a byte-order mark, NUL bytes) is text to every tool: ingest
indexes it, so `read_snippet` reads it and `regex_search` matches its lines, in the work
tree and at a revision, as `search_docs` finds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.conftest import structured_call as call

pytestmark = pytest.mark.anyio

TEXT = "# Sixteen page\n\n## Sixteen section\n\nThe word pangolin appears in this page.\n"


@pytest.fixture(params=["utf-16", "utf-32"])
def repo(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = init_repo(tmp_path / "repo", {"docs/other.md": "# Other\n\nNothing here.\n"})
    (root / "docs/wide.md").write_bytes(TEXT.encode(request.param))  # the codec writes a BOM
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a wide page")
    git(root, "tag", "v1")
    KnowledgeBase.open(root).ingest()
    return root


@pytest.mark.parametrize("ref", [None, "v1"])
async def test_every_tool_reads_a_page_ingest_indexed(repo: Path, ref: str | None) -> None:
    at = {} if ref is None else {"ref": ref}
    error, hits = await call(repo, "search_docs", {"query": "pangolin", **at})
    assert not error and [h["file_path"] for h in hits["results"]] == ["docs/wide.md"]

    error, snippet = await call(
        repo, "read_snippet", {"path": "docs/wide.md", "query": "pangolin", **at}
    )
    assert not error, snippet
    assert "The word pangolin appears" in snippet["text"]
    assert "\x00" not in snippet["text"] and "\ufeff" not in snippet["text"]

    if ref is None:  # regex_search reads the work tree only
        error, page = await call(repo, "regex_search", {"pattern": "pangolin"})
        assert not error, page
        assert [(h["path"], h["line"]) for h in page["results"]] == [("docs/wide.md", 5)]


async def test_a_file_with_nul_bytes_and_no_mark_is_still_refused(repo: Path) -> None:
    (repo / "docs/wide.md").write_bytes(b"# Page\n\npangolin\x00\x01\x02")
    error, body = await call(repo, "read_snippet", {"path": "docs/wide.md", "query": "pangolin"})
    assert error and "binary" in json.dumps(body)
