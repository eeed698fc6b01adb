"""`kenso-git connect CLIENT` outside git, run from a subfolder of the folder `ingest`
indexed: the root is the one `serve` takes from there (the index's folder above), so the
project file goes to the root, its entry names the root (started from any folder, it serves
that root), and `--check` judges the entry by that root. Before, the subfolder was the root:
`--write` put `.mcp.json` in guide/, and `--check` said the entry it had just written served
another repository than "this one", with a hint that wrote the same entry again.

Real `python -m kenso_git connect` runs, and the written entries started by a real MCP client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.helpers import plain_tree
from tests.helpers import run_cli
from tests.helpers import write

ALPHA = "# Alpha\n\nalpha beta gamma and enough words to be over fifty chars in this page\n"
BETA = "# Beta notes\n\nSee [alpha](guide/a.md), with words enough for a page of its own here.\n"
PROJECT_FILES = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json",
}
KEYS = {"claude-code": "mcpServers", "cursor": "mcpServers", "vscode": "servers"}


def _plain(tmp_path: Path, *, indexed: bool = True) -> tuple[Path, Path]:
    return plain_tree(tmp_path, {"guide/a.md": ALPHA, "b.md": BETA}, indexed=indexed)


def _ok(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _entry(root: Path, client: str) -> dict[str, Any]:
    text = (root / PROJECT_FILES[client]).read_text(encoding="utf-8")
    if client == "codex":
        return dict(tomllib.loads(text)["mcp_servers"]["kenso-git"])
    key = "servers" if client == "vscode" else "mcpServers"
    return dict(json.loads(text)[key]["kenso-git"])


@pytest.mark.parametrize("client", sorted(PROJECT_FILES))
def test_write_from_a_subfolder_writes_the_roots_file_naming_the_root(
    tmp_path: Path, client: str
) -> None:
    root, guide = _plain(tmp_path)
    said = _ok(run_cli(guide, "connect", client, "--write"))
    assert said.startswith(f"wrote the {client} entry to {root / PROJECT_FILES[client]}")
    assert sorted(p.name for p in guide.iterdir()) == ["a.md"]  # nothing written in guide/
    entry = _entry(root, client)
    assert entry["args"] == ["serve", "--root", str(root)]
    if client in ("codex", "gemini"):
        assert entry["cwd"] == str(root)


@pytest.mark.parametrize("client", sorted(KEYS))
def test_print_from_a_subfolder_shows_the_roots_entry_and_file(tmp_path: Path, client: str) -> None:
    root, guide = _plain(tmp_path)
    out = run_cli(guide, "connect", client)
    entry = json.loads(_ok(out))[KEYS[client]]["kenso-git"]
    assert entry["args"] == ["serve", "--root", str(root)]
    assert f"add this to {root / PROJECT_FILES[client]}, or rerun with --write" in out.stderr


@pytest.mark.parametrize("client", sorted(KEYS))
def test_check_from_a_subfolder_passes_for_the_entry_written_there(
    tmp_path: Path, client: str
) -> None:
    root, guide = _plain(tmp_path)
    _ok(run_cli(guide, "connect", client, "--write"))
    said = _ok(run_cli(guide, "connect", client, "--check"))
    assert said.startswith(f"{client} ({root / PROJECT_FILES[client]}): the entry starts")
    assert f"finds the index (2 documents) of {root}\n" in said


def test_check_of_a_user_entry_from_a_subfolder_finds_the_root(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    _ok(run_cli(guide, "connect", "claude-code", "--global", "--write"))
    said = _ok(run_cli(guide, "connect", "claude-code", "--global", "--check"))
    assert f"finds the index (2 documents) of {root}\n" in said


def test_an_entry_naming_the_subfolder_is_judged_by_the_root_serve_takes(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    entry = {"command": sys.executable, "args": ["-m", "kenso_git", "serve", "--root", str(guide)]}
    write(root, {".mcp.json": json.dumps({"mcpServers": {"kenso-git": entry}})})
    said = _ok(run_cli(root, "connect", "claude-code", "--check"))  # serve --root guide serves root
    assert f"finds the index (2 documents) of {root}\n" in said


def test_root_option_naming_the_subfolder_writes_for_the_root(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    _ok(run_cli(tmp_path, "connect", "cursor", "--write", "--root", str(guide)))
    assert _entry(root, "cursor")["args"] == ["serve", "--root", str(root)]
    assert not (guide / ".cursor").exists()


def test_with_no_index_above_the_subfolder_stays_the_root(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path, indexed=False)
    _ok(run_cli(guide, "connect", "claude-code", "--write"))
    assert _entry(guide, "claude-code")["args"] == ["serve", "--root", str(guide)]
    assert not (root / ".mcp.json").exists()


async def _served_root(entry: dict[str, Any], cwd: Path) -> str:
    """The root `index_state` reports for the entry started in `cwd` with a bare PATH."""
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        cwd=str(cwd),
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
    )
    async with Client(params) as client:
        state = await client.call_tool("index_state", {})
    assert not state.is_error
    return str(json.loads("".join(getattr(c, "text", "") for c in state.content))["root"])


@pytest.mark.anyio
async def test_the_written_entry_serves_the_root_from_any_folder(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    _ok(run_cli(guide, "connect", "vscode", "--write"))
    entry = _entry(root, "vscode")
    for cwd in (guide, root, Path("/")):
        assert await _served_root(entry, cwd) == str(root), cwd


@pytest.mark.parametrize("write", [True, False], ids=["write", "print"])
def test_a_project_file_above_the_folder_says_where_to_start_the_client(
    tmp_path: Path, write: bool
) -> None:
    # the file is written where `serve` takes the root; a client started in guide/ would
    # read guide/'s project file, so the command says where to start it
    root, guide = _plain(tmp_path)
    out = run_cli(guide, "connect", "claude-code", *(["--write"] if write else []))
    _ok(out)
    assert f"the project file is at the repository's root, {root}: open or start" in out.stderr
    assert f"a client started in {guide} reads" in out.stderr
    at_root = run_cli(root, "connect", "claude-code")
    assert "repository's root" not in _ok(at_root) + at_root.stderr
