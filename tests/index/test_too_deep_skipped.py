"""A Markdown file whose path has more components than the scope gate takes (`too-deep`) is
never indexed: ingest and every sync skip it with a warning naming it, as they skip a path
holding `%XX` or a tab. It was indexed silently, counted and shown by the CLI's search,
while every MCP tool refused or dropped it (tester's report t48a, defect 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.index.run import differs_from_head
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.pathtext import MAX_PATH_DEPTH
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

# the deepest path the gate takes: MAX_PATH_DEPTH components, then one more
DEEPEST = "docs/" + "d/" * (MAX_PATH_DEPTH - 2) + "kiwi.md"
TOO_DEEP = "docs/" + "d/" * (MAX_PATH_DEPTH - 1) + "kiwi.md"
WARNING = f"{TOO_DEEP}: its path has more than {MAX_PATH_DEPTH} components"
GOOD = doc("Good", "apples grow here, far from any kiwi. " * 5)


def _deep(name: str = "Deep") -> str:
    return doc(name, "The kiwi lives in a very deep page with words enough to be indexed. " * 3)


def _indexed(kb: KnowledgeBase) -> list[str]:
    return sorted(kb.read(lambda c: [r[0] for r in c.execute("SELECT path FROM files")]))


def test_ingest_skips_a_path_deeper_than_the_gate_takes_with_a_warning(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": GOOD, TOO_DEEP: _deep()})
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert WARNING in proc.stderr and "skipped" in proc.stderr
    assert '"documents": 1' in cli(root, "stats", "--json").stdout
    found = cli(root, "search", "kiwi", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["file_path"] for hit in json.loads(found.stdout)] == ["docs/good.md"]


def test_the_deepest_path_the_gate_takes_is_still_indexed(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {DEEPEST: _deep()})
    warnings: list[str] = []
    kb = KnowledgeBase.open(root)
    kb.ingest(warn=warnings.append)
    assert _indexed(kb) == [DEEPEST]
    assert not [w for w in warnings if "components" in w], warnings
    kb.close()


def test_every_sync_skips_it_too_committed_or_not(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": GOOD})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    write(root, {TOO_DEEP: _deep()})
    warnings: list[str] = []
    kb.sync(warn=warnings.append)  # untracked: git status lists it
    assert any(WARNING in w for w in warnings), warnings
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "deep page")
    write(root, {"docs/other.md": doc("Other", "cherries grow there. " * 5)})
    kb.sync(warn=warnings.append)
    kb.sync(paths=[TOO_DEEP, "docs/other.md"], warn=warnings.append)  # a hook's sync
    assert _indexed(kb) == ["docs/good.md", "docs/other.md"]
    kb.ingest(warn=warnings.append)
    assert _indexed(kb) == ["docs/good.md", "docs/other.md"]
    kb.close()
    assert cli(root, "sync").returncode == 0


def test_a_skipped_deep_doc_in_head_is_no_difference_from_head(tmp_path: Path) -> None:
    """HEAD tracks it and ingest skips it: the query-time check does not take it for a doc
    the index lacks (and sync again at every call)."""
    root = init_repo(tmp_path / "repo", {"docs/good.md": GOOD, TOO_DEEP: _deep()})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    blobs = kb.read(lambda c: dict(c.execute("SELECT path, blob_id FROM files").fetchall()))
    assert differs_from_head(kb.workspace, kb.settings, [""], blobs) is False
    kb.close()


@pytest.mark.anyio
async def test_what_the_mcp_tools_show_agrees_with_the_index(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {DEEPEST: _deep("Shallow"), TOO_DEEP: _deep()})
    KnowledgeBase.open(root).ingest()
    async with Client(build_server(Service(root))) as client:
        answer = await client.call_tool("search_docs", {"query": "kiwi", "limit": 20})
        assert not answer.is_error, answer.content[0].text
        assert [item["file_path"] for item in json.loads(answer.content[0].text)] == [DEEPEST]
        assert not (await client.call_tool("get_doc", {"path": DEEPEST})).is_error
        refused = await client.call_tool("get_doc", {"path": TOO_DEEP})
        assert refused.is_error and "too-deep" in refused.content[0].text
    assert KnowledgeBase.open(root).state().documents == 1
