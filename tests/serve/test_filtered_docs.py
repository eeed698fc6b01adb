"""A page under a clean/smudge filter (as git-lfs keeps one): the work tree holds the text,
the blob what the clean filter made of it. Its age is the commit git names (not
"uncommitted"), told from the sync's own `git status`, and at a revision it reads as its
blob is stored (`git show REV:path`: a git-lfs page's pointer). kenso-git never runs the
filter driver itself: the test's driver logs each run, and the log stays empty."""

from __future__ import annotations

import json
import os
import shlex
import time
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


def driver_log(root: Path) -> str:
    return (root.parent / "driver.log").read_text(encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """docs/big.md is kept through a rot13 filter that logs each run, docs/plain.md is
    not; both committed, git's index stat-clean, the log emptied, then indexed."""
    root = committed(tmp_path, backdated=True)
    KnowledgeBase.open(root).ingest()
    return root


def committed(tmp_path: Path, *, backdated: bool) -> Path:
    root = init_repo(tmp_path / "repo", commit=False)
    log = shlex.quote(str(tmp_path / "driver.log"))
    git(root, "config", "filter.rot.clean", f"echo clean >> {log}; {ROT13}")
    git(root, "config", "filter.rot.smudge", f"echo smudge >> {log}; {ROT13}")
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
    if backdated:  # files older than git's index: no status reads them again (racy git)
        past = time.time() - 100
        for name in (".gitattributes", "docs/big.md", "docs/plain.md"):
            os.utime(root / name, (past, past))
        git(root, "update-index", "--refresh")
    assert git(root, "status", "--porcelain") == ""
    assert "heron" not in git(root, "cat-file", "-p", "HEAD:docs/big.md")  # the blob is rot13
    (tmp_path / "driver.log").write_text("", encoding="utf-8")
    return root


async def test_a_filtered_page_git_calls_unchanged_has_the_commit_git_names(repo: Path) -> None:
    KnowledgeBase.open(repo).sync()
    page = await call(repo, "get_doc", {"path": "docs/big.md"})
    hits = await call(repo, "search_docs", {"query": "heron"})
    agent = await call(repo, "search", {"query": 're:"heron migration"'})

    assert "uncommitted" not in page
    assert page["last_commit"]["subject"] == "add docs"
    assert [(h["file_path"], h.get("last_commit", {}).get("subject")) for h in hits] == [
        ("docs/big.md", "add docs")
    ]
    assert "docs/big.md" in json.dumps(agent)
    assert driver_log(repo) == ""  # git's status told; no driver ran


async def test_an_edit_of_a_filtered_page_is_still_uncommitted(repo: Path) -> None:
    write(repo, {"docs/big.md": doc("Big", BODY + " Edited, not committed.")})

    page = await call(repo, "get_doc", {"path": "docs/big.md"})

    assert page.get("uncommitted") is True
    assert "last_commit" not in page


async def test_a_filtered_page_at_a_revision_reads_as_its_blob_is_stored(repo: Path) -> None:
    stored = git(repo, "show", "HEAD:docs/big.md")  # the pointer: here, rot13 text
    page = await call(repo, "get_doc", {"path": "docs/big.md", "ref": "HEAD"})
    heron = await call(repo, "search_docs", {"query": "heron", "ref": "HEAD"})
    ureba = await call(repo, "search_docs", {"query": "ureba", "ref": "HEAD"})
    grep = await call(repo, "search", {"query": 're:"ureba zvtengvba"', "ref": "HEAD"})
    snippet = await call(
        repo, "read_snippet", {"path": "docs/big.md", "query": "ureba", "ref": "HEAD"}
    )

    assert page["content"] == stored.strip()
    assert [h["file_path"] for h in heron] == []
    assert [h["file_path"] for h in ureba] == ["docs/big.md"]
    assert "docs/big.md" in json.dumps(grep)
    assert "ureba" in json.dumps(snippet)
    assert driver_log(repo) == ""  # no smudge: the blob as stored


async def test_a_filtered_page_written_as_git_looked_is_decided_by_the_next_sync(
    tmp_path: Path,
) -> None:
    # indexed the moment it was written: git's status may have looked before the write,
    # so the row stays open; the next sync, the file older than its status, decides
    repo = committed(tmp_path, backdated=False)
    KnowledgeBase.open(repo).ingest()
    time.sleep(1.5)  # past the clock slack: the file is now older than any new status
    KnowledgeBase.open(repo).sync()

    page = await call(repo, "get_doc", {"path": "docs/big.md"})

    assert "uncommitted" not in page
    assert page["last_commit"]["subject"] == "add docs"


async def test_a_filtered_page_a_hook_synced_after_its_commit_is_dated_by_the_next_sync(
    repo: Path,
) -> None:
    # the post-commit hook's targeted sync runs no git status: it cannot tell, and leaves
    # the row open; the next full sync asks git and names the commit
    write(repo, {"docs/big.md": doc("Big", BODY + " Now with the egret count.")})
    KnowledgeBase.open(repo).sync()
    git(repo, "commit", "-q", "-am", "count egrets")
    KnowledgeBase.open(repo).sync(paths=["docs/big.md"])
    time.sleep(1.5)  # past the clock slack: the file is older than the next status
    KnowledgeBase.open(repo).sync()

    page = await call(repo, "get_doc", {"path": "docs/big.md"})

    assert "uncommitted" not in page
    assert page["last_commit"]["subject"] == "count egrets"
