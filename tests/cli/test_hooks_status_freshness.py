"""`hooks status` says whether the index file is behind the work tree (it syncs nothing);
`state`, like the MCP tools, syncs first and says `stale` only when that could not be done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_hooks_status_says_behind_where_state_syncs_and_says_not_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: after an editor's save `hooks status --json` said "stale": true and `state`
    # said stale: False for the same index, one word for two different facts
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Apple", "Apples in winter.\n")})
    KnowledgeBase.open(root).ingest()
    monkeypatch.chdir(root)
    (root / "docs/a.md").write_text(doc("Apple", "Apples in spring.\n"), encoding="utf-8")
    status = json.loads(invoke("hooks", "status", "--json"))
    assert (status["index"], status["behind"]) == ("behind", True)
    assert "stale" not in status
    text = invoke("hooks", "status").splitlines()[-1]
    assert text.startswith("index: behind the work tree at ")
    assert "a search or tool call syncs it first" in text
    state = json.loads(invoke("state", "--json"))  # syncs the edit first, as a search would
    assert (state["stale"], state["worktree_differs"]) == (False, True)
    status = json.loads(invoke("hooks", "status", "--json"))
    assert (status["index"], status["behind"]) == ("fresh", False)
    assert invoke("hooks", "status").splitlines()[-1].startswith("index: fresh at ")
