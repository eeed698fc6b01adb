"""A `--global` entry serves the project the client has open, and `--check` compares roots.

The user-wide entry used to carry `--root` (and `cwd`) of the repository it was written in,
so every other project's agent searched that one repository's docs, and `--check` from
another repository (or of a project file naming another repository) still said all was well.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.connect.clients import CLIENTS
from tests.helpers import run_cli
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

MINIMAL_PATH = "/usr/bin:/bin"
FOLDER_VARIABLE = "${workspaceFolder}"
# the clients that start their servers in the project folder; Cursor and VS Code are given
# the project as ${workspaceFolder} instead
STARTS_IN_PROJECT = ("claude-code", "codex", "gemini")


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    """Two indexed repositories."""
    first, second = make_repo(tmp_path / "first"), make_repo(tmp_path / "second")
    ingest(first)
    ingest(second)
    return first, second


def _user_entry(client: str) -> dict[str, Any]:
    spec = CLIENTS[client]
    text = (Path(os.environ["HOME"]) / spec.user).read_text(encoding="utf-8")
    data = tomllib.loads(text) if spec.fmt == "toml" else json.loads(text)
    entry: dict[str, Any] = data[spec.key]["kenso-git"]
    return entry


async def _served_root(client: str, entry: dict[str, Any], project: Path) -> str:
    """Start `entry` as `client` starts it with `project` open; the root the server reports."""
    args = [str(a).replace(FOLDER_VARIABLE, str(project)) for a in entry["args"]]
    params = StdioServerParameters(
        command=entry["command"],
        args=args,
        cwd=entry.get("cwd") or (str(project) if client in STARTS_IN_PROJECT else "/"),
        env={"PATH": MINIMAL_PATH, "HOME": os.environ["HOME"]},
    )
    async with Client(params) as session:
        state = await session.call_tool("index_state", {})
    text = "".join(getattr(part, "text", "") for part in state.content)
    root: str = json.loads(text)["root"]
    return root


@pytest.mark.anyio
@pytest.mark.parametrize("client", sorted(CLIENTS))
async def test_a_global_entry_serves_the_project_the_client_has_open(
    client: str, repos: tuple[Path, Path]
) -> None:
    first, second = repos
    written = run_cli(first, "connect", client, "--global", "--write")
    assert written.returncode == 0, written.stderr
    entry = _user_entry(client)
    assert str(first) not in json.dumps(entry)  # no repository pinned in the user file
    assert "cwd" not in entry
    if client in STARTS_IN_PROJECT:
        assert entry["args"] == ["serve"]
    else:
        assert entry["args"] == ["serve", "--root", FOLDER_VARIABLE]
    assert await _served_root(client, entry, second) == str(second)
    assert await _served_root(client, entry, first) == str(first)
    assert "names no repository" in written.stderr or FOLDER_VARIABLE in written.stderr


def test_writing_the_global_entry_in_another_repository_changes_nothing(
    repos: tuple[Path, Path],
) -> None:
    first, second = repos
    assert run_cli(first, "connect", "codex", "--global", "--write").returncode == 0
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    before = config.read_text(encoding="utf-8")
    again = run_cli(second, "connect", "codex", "--global", "--write")
    assert again.returncode == 0, again.stderr
    assert config.read_text(encoding="utf-8") == before  # the pin no longer moves


def test_a_printed_global_entry_names_no_repository(repos: tuple[Path, Path]) -> None:
    first, _ = repos
    shown = run_cli(first, "connect", "gemini", "--global")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["mcpServers"]["kenso-git"]["args"] == ["serve"]
    assert "Gemini CLI starts" in shown.stderr


def test_check_of_a_global_entry_names_the_repository_it_serves(repos: tuple[Path, Path]) -> None:
    first, second = repos
    assert run_cli(first, "connect", "claude-code", "--global", "--write").returncode == 0
    for repo in (second, first):
        checked = run_cli(repo, "connect", "claude-code", "--global", "--check")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert f"finds the index (3 documents) of {repo}" in checked.stdout


def test_check_fails_for_a_global_entry_pinned_to_another_repository(
    repos: tuple[Path, Path],
) -> None:
    """The entry 0.1.0 wrote with `--global`: it serves the first repository everywhere."""
    first, second = repos
    assert run_cli(first, "connect", "claude-code", "--write").returncode == 0
    pinned = json.loads((first / ".mcp.json").read_text(encoding="utf-8"))
    (Path(os.environ["HOME"]) / ".claude.json").write_text(json.dumps(pinned), encoding="utf-8")
    checked = run_cli(second, "connect", "claude-code", "--global", "--check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"the entry serves {first}, not this repository ({second})" in checked.stdout
    assert "every project" in checked.stdout
    assert "hint: write it again for this repository: " in checked.stdout
    assert "`kenso-git connect claude-code --write --global`" in checked.stdout


def test_check_fails_for_a_project_entry_naming_another_repository(
    repos: tuple[Path, Path],
) -> None:
    first, second = repos
    assert run_cli(second, "connect", "claude-code", "--write").returncode == 0
    path = second / ".mcp.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["mcpServers"]["kenso-git"]["args"] = ["serve", "--root", str(first)]
    path.write_text(json.dumps(data), encoding="utf-8")
    checked = run_cli(second, "connect", "claude-code", "--check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"the entry serves {first}, not this repository ({second})" in checked.stdout
    assert "hint: write it again for this repository: `kenso-git connect claude-code --write`" in (
        checked.stdout
    )


def test_check_asks_the_server_its_root_when_the_entry_hides_it(
    repos: tuple[Path, Path],
) -> None:
    """A wrapper command names the repository where --check cannot read it: the server
    started from the entry says which repository it serves."""
    first, second = repos
    assert run_cli(second, "connect", "gemini", "--write").returncode == 0
    path = second / ".gemini" / "settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    ours = data["mcpServers"]["kenso-git"]
    ours["args"] = ["-c", f'exec "{ours["command"]}" serve --root "{first}"']
    ours["command"] = "/bin/sh"
    path.write_text(json.dumps(data), encoding="utf-8")
    checked = run_cli(second, "connect", "gemini", "--check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"the entry serves {first}, not this repository ({second})" in checked.stdout
