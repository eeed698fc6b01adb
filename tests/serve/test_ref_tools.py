"""#29's `ref` over MCP: `search_docs` at a revision through the SDK's client against the real
server, with today's scope applied to the revision's paths."""

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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def call(root: Path, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    text = result.content[0].text  # type: ignore[union-attr]
    if result.is_error:
        return True, text
    return False, json.loads(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """v1 has docs/old.md (walrus), private/walrus.md (hidden by agent-scoped-roots) and
    docs/gone.md; HEAD renamed old.md, deleted gone.md and moved the private doc."""
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/old.md": doc("Old", "The walrus migration plan. " * 20),
            "docs/gone.md": doc("Gone", "A walrus page deleted since. " * 20),
            "private/walrus.md": doc("Private", "Private walrus notes. " * 20),
            ".kenso.toml": 'agent-scoped-roots = ["docs"]\n',
        },
    )
    git(root, "tag", "v1")
    git(root, "mv", "docs/old.md", "docs/renamed.md")
    git(root, "rm", "-q", "docs/gone.md", "private/walrus.md")
    write(root, {"private/later.md": doc("Later", "Later walrus notes. " * 20)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "rename old, drop gone")
    KnowledgeBase.open(root).ingest()
    return root


async def test_search_docs_at_a_tag_answers_with_the_paths_as_at_the_tag(repo: Path) -> None:
    failed, now = await call(repo, "search_docs", {"query": "walrus", "limit": 10})
    assert not failed
    assert {h["file_path"] for h in now} == {"docs/renamed.md"}

    failed, then = await call(repo, "search_docs", {"query": "walrus", "limit": 10, "ref": "v1"})
    assert not failed
    # hidden at every revision: private/ is outside agent-scoped-roots today
    assert {h["file_path"] for h in then} == {"docs/old.md", "docs/gone.md"}


async def test_search_docs_at_a_bad_ref_is_a_tool_error_naming_it(repo: Path) -> None:
    failed, text = await call(repo, "search_docs", {"query": "walrus", "ref": "nope-nope"})
    assert failed
    assert "nope-nope" in text and "Traceback" not in text
    assert str(repo) not in text


async def test_hidden_docs_at_a_revision_move_no_score(tmp_path: Path) -> None:
    """#27's rule at every revision: a doc the scope hides changes no statistic."""
    scores = []
    for hidden in (False, True):
        files = {
            "docs/a.md": doc("A", "The walrus plan. " * 10 + "Other words here. " * 30),
            "docs/b.md": doc("B", "The walrus migration. " * 5 + "Filler text. " * 30),
            ".kenso.toml": 'agent-scoped-roots = ["docs"]\n',
        }
        if hidden:
            files["private/w.md"] = doc("W", "walrus " * 200)
        root = init_repo(tmp_path / f"repo{hidden}", files)
        git(root, "tag", "v1")
        write(root, {"docs/a.md": doc("A", "Nothing about that animal now. " * 20)})
        git(root, "commit", "-qam", "edit")
        KnowledgeBase.open(root).ingest()
        failed, hits = await call(root, "search_docs", {"query": "walrus", "ref": "v1"})
        assert not failed
        scores.append([(h["file_path"], h["score"]) for h in hits])
    assert scores[0] == scores[1]
