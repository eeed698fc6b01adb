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


async def test_get_doc_at_a_tag_reads_a_path_renamed_or_deleted_since(repo: Path) -> None:
    failed, _ = await call(repo, "get_doc", {"path": "docs/old.md"})
    assert failed  # not in the work tree any more
    failed, then = await call(repo, "get_doc", {"path": "docs/old.md", "ref": "v1"})
    assert not failed and "The walrus migration plan." in then["content"]
    failed, gone = await call(repo, "get_doc", {"path": "docs/gone.md", "ref": "v1"})
    assert not failed and "deleted since" in gone["content"]
    failed, text = await call(repo, "get_doc", {"path": "docs/renamed.md", "ref": "v1"})
    assert failed and "docs/renamed.md" in text  # not there at v1
    # hidden today, hidden at every revision (the file existed at v1)
    failed, text = await call(repo, "get_doc", {"path": "private/walrus.md", "ref": "v1"})
    assert failed and "outside-scope" in text and "Private walrus" not in text


async def test_read_snippet_at_a_tag_reads_the_blob_not_the_work_tree(repo: Path) -> None:
    write(repo, {"docs/renamed.md": doc("Old", "An uncommitted edit of the plan.")})
    args = {"path": "docs/old.md", "query": "migration", "ref": "v1"}
    failed, then = await call(repo, "read_snippet", args)
    assert not failed and "walrus migration plan" in then["text"]
    assert then["path"] == "docs/old.md"
    failed, head = await call(
        repo, "read_snippet", {**args, "path": "docs/renamed.md", "ref": "HEAD"}
    )
    assert not failed and "walrus migration plan" in head["text"]  # HEAD's blob, not the edit
    failed, text = await call(repo, "read_snippet", {**args, "path": "private/walrus.md"})
    assert failed and "outside-scope" in text and "Private walrus" not in text
    failed, text = await call(repo, "read_snippet", {**args, "path": "docs/nothing.md"})
    assert failed and "no file at docs/nothing.md in v1" in text
    failed, text = await call(repo, "read_snippet", {**args, "ref": "nope-nope"})
    assert failed and "nope-nope" in text and "Traceback" not in text


async def test_the_search_tool_at_a_tag_answers_with_the_paths_as_at_the_tag(repo: Path) -> None:
    failed, now = await call(repo, "search", {"query": "walrus"})
    assert not failed and {h["path"] for h in now["results"]} == {"docs/renamed.md"}
    failed, then = await call(repo, "search", {"query": "walrus", "ref": "v1"})
    assert not failed
    assert {h["path"] for h in then["results"]} == {"docs/old.md", "docs/gone.md"}
    failed, then = await call(repo, "search", {"query": "walrus in:docs/old.md", "ref": "v1"})
    assert not failed and [h["path"] for h in then["results"]] == ["docs/old.md"]
    failed, text = await call(repo, "search", {"query": "walrus in:private", "ref": "v1"})
    assert failed and "outside-scope" in text


async def test_a_symbolic_link_at_a_revision_is_not_followed(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("A", "Alpha text. " * 20)})
    (root / ".env").write_text("SECRET=canary-4411\n", encoding="utf-8")
    (root / "docs/link.md").symlink_to("../.env")
    git(root, "add", "-f", "docs/link.md", ".env")
    git(root, "commit", "-qm", "a link")
    git(root, "tag", "linked")
    git(root, "rm", "-q", "docs/link.md", ".env")
    git(root, "commit", "-qm", "no link")
    KnowledgeBase.open(root).ingest()
    for tool, args in (
        ("read_snippet", {"path": "docs/link.md", "query": "", "ref": "linked"}),
        ("get_doc", {"path": "docs/link.md", "ref": "linked"}),
        ("search_docs", {"query": "canary", "ref": "linked"}),
        ("search", {"query": "canary", "ref": "linked"}),
    ):
        _, answer = await call(root, tool, args)
        assert "canary-4411" not in json.dumps(answer), tool


async def test_a_symlinked_doc_at_a_revision_is_its_target_as_the_checkout_indexes_it(
    tmp_path: Path,
) -> None:
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/guide.md": doc("Guide", "The zebra crossing guide. " * 20),
            "private/secret.md": doc("Secret", "Private zebra canary-7313. " * 20),
            ".kenso.toml": 'agent-scoped-roots = ["docs"]\n',
        },
    )
    (root / "docs/alias.md").symlink_to("guide.md")
    (root / "docs/peek.md").symlink_to("../private/secret.md")
    (root / "docs/chain.md").symlink_to("alias.md")
    (root / "docs/out.md").symlink_to("../../outside.md")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "links")
    git(root, "tag", "linked")
    git(root, "rm", "-q", "docs/alias.md", "docs/peek.md", "docs/chain.md", "docs/out.md")
    git(root, "commit", "-qm", "no links")
    KnowledgeBase.open(root).ingest()
    failed, hits = await call(root, "search_docs", {"query": "zebra", "limit": 10, "ref": "linked"})
    assert not failed
    assert {h["file_path"] for h in hits} == {"docs/guide.md", "docs/alias.md", "docs/chain.md"}
    failed, page = await call(root, "search", {"query": "zebra", "ref": "linked"})
    assert {h["path"] for h in page["results"]} == {h["file_path"] for h in hits}
    args = {"path": "docs/chain.md", "query": "crossing", "ref": "linked"}
    failed, snip = await call(root, "read_snippet", args)
    assert not failed and "zebra crossing guide" in snip["text"]
    failed, got = await call(root, "get_doc", {"path": "docs/alias.md", "ref": "linked"})
    assert not failed and "zebra crossing guide" in got["content"]
    for path in ("docs/peek.md", "docs/out.md"):
        for tool, extra in (("read_snippet", {"query": ""}), ("get_doc", {})):
            failed, text = await call(root, tool, {"path": path, "ref": "linked", **extra})
            assert failed and "canary-7313" not in text, (tool, path)
