"""An index named by --db whose root moved away: every surface answers from the index as it
is, flagged stale, with the recorded root and the index's own counts. `state` and the
`index_state` tool said 0 documents and named the current folder as root, and a server
answered `search_docs` with [] while `kenso-git search` found the docs."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

KENSO_EXE = Path(sys.executable).parent / "kenso-git"
DOCS = {
    f"docs/d{i}.md": doc(f"Doc {i}", f"zeppelin words of document {i}. " * 12) for i in (1, 2, 3)
}


def moved_away(tmp_path: Path) -> tuple[Path, Path]:
    """(the recorded root, now gone; the index kept outside it)."""
    root = init_repo(tmp_path / "repo", DOCS)
    db = tmp_path / "dbs" / "docs.db"
    db.parent.mkdir()
    out = run_cli(root, "ingest", "--db", str(db), "--no-lint")
    assert out.returncode == 0, out.stderr
    shutil.move(root, tmp_path / "moved")
    return root.resolve(), db


def test_stats_and_state_report_the_recorded_root_and_the_indexed_docs(tmp_path: Path) -> None:
    root, db = moved_away(tmp_path)
    for command in ("stats", "state"):
        out = run_cli(tmp_path, command, "--db", str(db), "--json")
        assert out.returncode == 0, out.stderr
        payload = json.loads(out.stdout)
        assert payload["root"] == str(root), command
        assert payload["documents"] == 3, command
        assert payload["stale"] is True, command
    search = run_cli(tmp_path, "search", "zeppelin", "--db", str(db), "--json")
    assert {r["file_path"] for r in json.loads(search.stdout)} == set(DOCS)


@pytest.mark.anyio
async def test_a_server_of_it_answers_like_the_command_line(tmp_path: Path) -> None:
    root, db = moved_away(tmp_path)
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    params = StdioServerParameters(
        command=str(KENSO_EXE),
        args=["serve", "--db", str(db), "--no-watch"],
        cwd=tmp_path,
        env={k: os.environ[k] for k in keep if k in os.environ},
    )
    async with Client(params) as client:
        hits = await client.call_tool("search_docs", {"query": "zeppelin"})
        state = await client.call_tool("index_state", {})
    assert not hits.is_error
    assert {h["file_path"] for h in json.loads(hits.content[0].text)} == set(DOCS)  # type: ignore[union-attr]
    assert hits.structured_content is not None and hits.structured_content["stale"] is True
    assert not state.is_error
    payload = json.loads(state.content[0].text)  # type: ignore[union-attr]
    assert payload["documents"] == 3
    assert payload["root"] == str(root)
    assert payload["stale"] is True
    # the lost root lies under the server's folder: it is hidden whole, not cut to "repo"
    assert "the index's root (outside this checkout) is no longer there" in payload["stale_reason"]
