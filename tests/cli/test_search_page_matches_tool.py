"""`kenso-git search --format json` prints the `search` MCP tool's page (`search --help`), and
its hits say how old each doc is as the tool's do (docs/history.md, "How old a page is");
the default `--limit` is brought within `search-limit-max` without a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from kenso_git.cli.main import cli
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Two committed docs and one uncommitted, all about the zebra, indexed."""
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/a.md": doc("Alpha", "The zebra protocol handles retries. " * 20),
            "docs/b.md": doc("Beta", "A zebra ledger reconciles invoices. " * 20),
        },
    )
    write(root, {"docs/c.md": doc("Gamma", "The zebra runbook rotates keys. " * 20)})
    KnowledgeBase.open(root).ingest()
    return root


async def _tool_page(root: Path, args: dict[str, Any]) -> dict[str, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool("search", args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def _cli_page(root: Path, *args: str) -> dict[str, Any]:
    proc = run_cli(root, "search", *args)
    assert proc.returncode == 0, proc.stderr
    page: dict[str, Any] = json.loads(proc.stdout)
    return page


@pytest.mark.anyio
async def test_format_json_prints_the_search_tools_page_with_last_commit(repo: Path) -> None:
    """The tool's hits carried `last_commit` (or `uncommitted`), the CLI page's had neither."""
    tool = await _tool_page(repo, {"query": "zebra"})
    for extra in ((), ("--path", "docs"), ("--exhaustive",)):
        printed = _cli_page(repo, "zebra", "--format", "json", *extra)
        if not extra:
            assert printed == tool
        ages = {h["path"]: h.get("last_commit", {}).get("subject") for h in printed["results"]}
        assert ages == {"docs/a.md": "initial", "docs/b.md": "initial", "docs/c.md": None}
        (new,) = [h for h in printed["results"] if h["path"] == "docs/c.md"]
        assert new["uncommitted"] is True
    assert _cli_page(repo, "zebra", "--json", "--page-size", "10") == tool


@pytest.mark.anyio
async def test_format_json_at_a_revision_carries_no_last_commit_as_the_tool(repo: Path) -> None:
    tool = await _tool_page(repo, {"query": "zebra", "ref": "HEAD"})
    printed = _cli_page(repo, "zebra", "--format", "json", "--ref", "HEAD")
    assert {h["path"] for h in printed["results"]} == {"docs/a.md", "docs/b.md"}
    assert printed["results"] == tool["results"]
    assert all("last_commit" not in h and "uncommitted" not in h for h in printed["results"])


def test_the_default_limit_is_clamped_without_a_warning(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With search-limit-max below 5, every plain search warned `--limit 5 is outside 1..2`
    though no --limit was given; a --limit the user gave still says so."""
    (repo / ".kenso.toml").write_text("search-limit-max = 2\n", encoding="utf-8")
    plain = run_cli(repo, "search", "zebra", "--json")  # the click-free fast path
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr == ""
    assert len(json.loads(plain.stdout)) == 2
    monkeypatch.chdir(repo)
    clicked = CliRunner().invoke(cli, ["search", "zebra"])  # the click command
    assert clicked.exit_code == 0, clicked.output
    assert clicked.stderr == ""
    assert "2 results" in clicked.stdout
    for given in (["--limit", "5"], ["-n", "5"], ["--limit=5"]):
        told = run_cli(repo, "search", "zebra", *given)
        assert told.returncode == 0, told.stderr
        assert told.stderr == "kenso-git: --limit 5 is outside 1..2; showing 2\n"
    assert run_cli(repo, "search", "zebra", "--limit", "1").stderr == ""
