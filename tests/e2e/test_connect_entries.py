"""`connect` entries that survive reality: any launcher, the user's keys, JSONC, BOM, TOML."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.cli.main import cli
from kenso_git.connect.clients import CLIENTS
from kenso_git.connect.clients import plan
from kenso_git.connect.clients import write
from kenso_git.errors import UsageError
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

MINIMAL_PATH = "/usr/bin:/bin"


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    ingest(root)
    return root


def _entry(client: str, path: Path) -> dict[str, Any]:
    spec = CLIENTS[client]
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if spec.fmt == "toml" else json.loads(text)
    entry: dict[str, Any] = data[spec.key]["kenso-git"]
    return entry


@pytest.mark.anyio
@pytest.mark.parametrize("client", sorted(CLIENTS))
async def test_the_written_entry_starts_from_slash_with_a_minimal_path(
    client: str, indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(indexed)
    written = CliRunner().invoke(cli, ["connect", client, "--write"])
    assert written.exit_code == 0, written.output
    entry = _entry(client, indexed / CLIENTS[client].project)
    assert os.path.isabs(entry["command"])
    # Exactly as written, as a client launched from a desktop menu would start it.
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        cwd=entry.get("cwd", "/"),
        env={"PATH": MINIMAL_PATH, "HOME": os.environ["HOME"]},
    )
    async with Client(params) as session:
        health = json.loads((await session.call_tool("health_check", {})).content[0].text)
    assert health["ok"] is True and health["documents"] == 3


def test_connect_check_says_whether_the_entry_finds_the_index(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(indexed)
    runner = CliRunner()
    assert runner.invoke(cli, ["connect", "gemini", "--write"]).exit_code == 0
    good = runner.invoke(cli, ["connect", "gemini", "--check"])
    assert good.exit_code == 0, good.output
    assert "finds the index (3 documents)" in good.output
    settings = indexed / ".gemini" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    absolute = data["mcpServers"]["kenso-git"]["command"]
    data["mcpServers"]["kenso-git"]["command"] = "kenso-git"  # bare: not on a minimal PATH
    settings.write_text(json.dumps(data), encoding="utf-8")
    bad = runner.invoke(cli, ["connect", "gemini", "--check"])
    assert bad.exit_code == 1 and "does not start" in bad.output
    data["mcpServers"]["kenso-git"]["args"] = ["serve"]  # no --root: started from /
    data["mcpServers"]["kenso-git"].pop("cwd")
    data["mcpServers"]["kenso-git"]["command"] = absolute
    settings.write_text(json.dumps(data), encoding="utf-8")
    lost = runner.invoke(cli, ["connect", "gemini", "--check"])
    assert lost.exit_code == 1 and "cannot serve" in lost.output
    assert "write it again with `kenso-git connect gemini --write`" in lost.output
    missing = runner.invoke(cli, ["connect", "cursor", "--check"])
    assert isinstance(missing.exception, UsageError)  # exit 2 through the entry point
    assert missing.exception.hint and "connect cursor" in missing.exception.hint


def test_connect_check_hints_name_the_command_that_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#26: each failing --check says what to run, with the flags that make it work."""
    root = make_repo(tmp_path / "repo")  # not indexed yet
    monkeypatch.chdir(root)
    runner = CliRunner()
    assert runner.invoke(cli, ["connect", "gemini", "--write"]).exit_code == 0
    unindexed = runner.invoke(cli, ["connect", "gemini", "--check"])
    assert unindexed.exit_code == 1 and "cannot serve" in unindexed.output
    assert f"hint: build the index once: `kenso-git ingest {root}`" in unindexed.output
    ingest(root)
    settings = root / ".gemini" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["mcpServers"]["kenso-git"]["command"] = str(tmp_path / "gone" / "kenso-git")
    settings.write_text(json.dumps(data), encoding="utf-8")
    moved = runner.invoke(cli, ["connect", "gemini", "--check"])
    assert moved.exit_code == 1 and "does not start" in moved.output
    assert "hint: write it again for this installation: `kenso-git connect gemini --write`" in (
        moved.output
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    user = runner.invoke(cli, ["connect", "gemini", "--check", "--global"])
    assert isinstance(user.exception, UsageError)
    assert user.exception.hint == "run `kenso-git connect gemini --write --global`"


def test_a_rewrite_keeps_the_users_keys_and_the_first_backup(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    path = root / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    mine = {"command": "old", "args": ["x"], "env": {"A": "1"}, "timeout": 5, "trust": True}
    original = json.dumps({"theme": "dark", "mcpServers": {"kenso-git": mine}})
    path.write_text(original, encoding="utf-8")
    write(plan("gemini", root, tmp_path, command="/k/kenso-git"))
    second = write(plan("gemini", root, tmp_path, command="/k2/kenso-git"))
    assert second is None  # the .bak already holds the original: never overwritten
    kept = root / ".gemini" / "settings.json.kenso-git.bak"  # beside it, out of git's sight
    assert kept.read_text(encoding="utf-8") == original
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["kenso-git"]
    assert entry == {
        "command": "/k2/kenso-git",
        "args": ["serve", "--root", str(root)],
        "cwd": str(root),
        "env": {"A": "1"},
        "timeout": 5,
        "trust": True,
    }


def test_a_jsonc_file_is_read_and_left_untouched_with_the_entry_to_paste(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = indexed / ".vscode" / "mcp.json"
    path.parent.mkdir()
    text = (
        '{\n  // my servers\n  "servers": {\n    "other": {"command": "x"}, /* kept */\n  },\n}\n'
    )
    path.write_text(text, encoding="utf-8")
    result = plan("vscode", indexed, Path.home())
    assert result.merged is None and "JSONC" in result.why_untouched
    with pytest.raises(UsageError):
        write(result)
    monkeypatch.chdir(indexed)
    shown = CliRunner().invoke(cli, ["connect", "vscode", "--write"])
    assert isinstance(shown.exception, UsageError)  # exit 2 through the entry point
    assert json.loads(shown.stdout)["servers"]["kenso-git"]["type"] == "stdio"
    assert "left untouched" in shown.exception.message
    assert path.read_text(encoding="utf-8") == text
    assert not (path.parent / "mcp.json.bak").exists()


def test_a_bom_is_read_and_kept(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('\ufeff{"mcpServers": {"other": {"command": "x"}}}', encoding="utf-8")
    write(plan("cursor", tmp_path, tmp_path / "home", command="/k/kenso-git"))
    raw = path.read_text(encoding="utf-8")
    assert raw.startswith("\ufeff")
    data = json.loads(raw.removeprefix("\ufeff"))
    assert set(data["mcpServers"]) == {"other", "kenso-git"}


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers = { other = { command = "x" } }\n',
        '# mine\n[mcp_servers]\nother = { command = "x" }\nkenso-git = { command = "old" }\n',
    ],
)
def test_codex_inline_tables_are_merged(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    write(plan("codex", tmp_path, tmp_path / "home", command="/k/kenso-git"))
    merged = path.read_text(encoding="utf-8")
    data = tomllib.loads(merged)
    assert data["mcp_servers"]["other"] == {"command": "x"}
    assert data["mcp_servers"]["kenso-git"]["command"] == "/k/kenso-git"
    assert data["mcp_servers"]["kenso-git"]["cwd"] == str(tmp_path)
    assert ("# mine" in merged) == ("# mine" in text)  # comments kept
