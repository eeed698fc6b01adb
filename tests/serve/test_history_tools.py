"""#29 over MCP: `changed_docs`, each hit's `last_commit`, and `health_check.drift`, through the
SDK's client against the real server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.serve.conftest import structured_call as call

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/deploy.md": doc("Deploy", "Deploy the zeppelin. " * 20),
            "docs/old.md": doc("Old", "An old zeppelin page. " * 20),
            "private/notes.md": doc("Notes", "Private zeppelin notes. " * 20),
            ".kenso.toml": 'agent-scoped-roots = ["docs"]\n',
        },
    )
    git(root, "tag", "v1")
    git(root, "mv", "docs/old.md", "docs/renamed.md")
    write(root, {"docs/new.md": doc("New", "A new zeppelin page. " * 20)})
    write(root, {"private/secret.md": doc("Secret", "zeppelin secret. " * 20)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "rename old, add new")
    write(root, {"docs/deploy.md": doc("Deploy", "Deploy the zeppelin fleet now. " * 20)})
    KnowledgeBase.open(root).ingest()
    return root


async def test_changed_docs_lists_the_scoped_docs_changed_since_a_tag(repo: Path) -> None:
    failed, body = await call(repo, "changed_docs", {"since": "v1"})
    assert not failed, body
    by_path = {item["path"]: item for item in body["results"]}
    assert set(by_path) == {"docs/deploy.md", "docs/new.md", "docs/renamed.md"}
    assert by_path["docs/renamed.md"]["status"] == "renamed"
    assert by_path["docs/renamed.md"]["old_path"] == "docs/old.md"
    assert by_path["docs/new.md"]["last_commit"]["subject"] == "rename old, add new"
    assert by_path["docs/deploy.md"]["uncommitted"] is True
    failed, body = await call(repo, "changed_docs", {"since": "v1", "until": "HEAD"})
    assert {i["path"] for i in body["results"]} == {"docs/new.md", "docs/renamed.md"}


async def test_changed_docs_refuses_an_unknown_revision_with_a_reason(repo: Path) -> None:
    failed, body = await call(repo, "changed_docs", {"since": "no-such-tag"})
    assert failed
    assert "no-such-tag" in json.dumps(body)


async def test_hits_and_get_doc_say_how_old_the_doc_is(repo: Path) -> None:
    _, body = await call(repo, "search_docs", {"query": "zeppelin", "limit": 10})
    ages = {hit["file_path"]: hit for hit in body["results"]}
    assert ages["docs/deploy.md"].get("uncommitted") is True
    assert ages["docs/new.md"]["last_commit"]["subject"] == "rename old, add new"
    _, page = await call(repo, "search", {"query": "zeppelin"})
    assert {h["path"] for h in page["results"] if "last_commit" in h} >= {"docs/new.md"}
    _, one = await call(repo, "get_doc", {"path": "docs/renamed.md"})
    assert one["last_commit"]["subject"] == "rename old, add new"


async def test_health_check_reports_instruction_drift(tmp_path: Path) -> None:
    upstream = init_repo(tmp_path / "up", {"docs/a.md": doc("A", "zeppelin. " * 20)})
    write(upstream, {"AGENTS.md": "# Agents\n\nUse the zeppelin.\n"})
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "agents")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    git(clone, "reset", "-q", "--hard", "HEAD~1")
    KnowledgeBase.open(clone).ingest()
    _, health = await call(clone, "health_check", {})
    drift = health["drift"]
    assert drift["drifted"] is True and drift["behind"] == 1
    assert [f["path"] for f in drift["files"]] == ["AGENTS.md"]
    assert drift["files"][0]["status"] == "added"


async def test_search_json_prints_the_search_docs_tools_array(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/getting-started.md: `--json` prints exactly the array the MCP `search_docs` tool
    returns; the tool's hits carry `last_commit` (or `uncommitted`), the CLI's did not."""
    from click.testing import CliRunner

    from kenso_git.cli.main import cli

    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha talks here. " * 20)})
    write(root, {"docs/b.md": doc("Beta", "Alpha talks again. " * 20)})  # uncommitted
    KnowledgeBase.open(root).ingest()
    _, tool = await call(root, "search_docs", {"query": "alpha talks", "limit": 5})
    monkeypatch.chdir(root)
    shown = CliRunner().invoke(cli, ["search", "--json", "alpha talks"])
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.stdout)
    assert printed == tool["results"]
    assert {"last_commit" in hit or hit.get("uncommitted") for hit in printed} == {True}
