"""A page under a clean/smudge filter (as git-lfs keeps one): the work tree holds the text,
the blob what the clean filter made of it. Its age is the commit git names (not
"uncommitted"), and at a revision it reads as a checkout writes it, not as its blob."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

pytestmark = pytest.mark.anyio

ROT13 = "tr a-zA-Z n-za-mN-ZA-M"  # its own inverse: the clean and the smudge filter
BODY = "The heron migration is planned for spring, with the marsh survey first."


async def call(root: Path, tool: str, args: dict[str, Any]) -> Any:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """docs/big.md is kept through a rot13 filter, docs/plain.md is not; both committed."""
    root = init_repo(tmp_path / "repo", commit=False)
    git(root, "config", "filter.rot.clean", ROT13)
    git(root, "config", "filter.rot.smudge", ROT13)
    write(
        root,
        {
            ".gitattributes": "docs/big.md filter=rot\n",
            "docs/big.md": doc("Big", BODY),
            "docs/plain.md": doc("Plain", "A plain page about the pelican colony."),
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add docs")
    assert git(root, "status", "--porcelain") == ""
    assert "heron" not in git(root, "cat-file", "-p", "HEAD:docs/big.md")  # the blob is rot13
    KnowledgeBase.open(root).ingest()
    return root


async def test_a_filtered_page_git_calls_unchanged_has_the_commit_git_names(repo: Path) -> None:
    page = await call(repo, "get_doc", {"path": "docs/big.md"})
    hits = await call(repo, "search_docs", {"query": "heron"})

    assert "uncommitted" not in page
    assert page["last_commit"]["subject"] == "add docs"
    assert [(h["file_path"], h.get("last_commit", {}).get("subject")) for h in hits] == [
        ("docs/big.md", "add docs")
    ]


async def test_an_edit_of_a_filtered_page_is_still_uncommitted(repo: Path) -> None:
    write(repo, {"docs/big.md": doc("Big", BODY + " Edited, not committed.")})

    page = await call(repo, "get_doc", {"path": "docs/big.md"})

    assert page.get("uncommitted") is True
    assert "last_commit" not in page


async def test_a_filtered_page_at_a_revision_reads_as_a_checkout_writes_it(repo: Path) -> None:
    page = await call(repo, "get_doc", {"path": "docs/big.md", "ref": "HEAD"})
    hits = await call(repo, "search_docs", {"query": "heron", "ref": "HEAD"})

    assert page["content"] == (repo / "docs" / "big.md").read_text(encoding="utf-8").strip()
    assert [h["file_path"] for h in hits] == ["docs/big.md"]
