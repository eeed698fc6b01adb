"""`connect` on a file it cannot merge: the entry to paste is printed whenever the hint says
to paste it, TOML dotted keys are edited as the tables they are, and `--check` never
suggests a `--write` that would refuse the file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _put(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_write_into_invalid_json_prints_the_entry_its_hint_says_to_paste(root: Path) -> None:
    path = _put(root, ".gemini/settings.json", '{ "mcpServers": { "other": ')
    refused = run_cli(root, "connect", "gemini", "--write")
    assert refused.returncode == 2
    assert "is not valid JSON" in refused.stderr and "printed above" in refused.stderr
    assert json.loads(refused.stdout)["mcpServers"]["kenso-git"]["args"][0] == "serve"
    assert path.read_text(encoding="utf-8") == '{ "mcpServers": { "other": '


def test_write_into_invalid_toml_prints_the_entry_its_hint_says_to_paste(root: Path) -> None:
    _put(root, ".codex/config.toml", 'model = "o3"\n[mcp_servers\n')
    refused = run_cli(root, "connect", "codex", "--write")
    assert refused.returncode == 2
    assert "is not valid TOML" in refused.stderr and "printed above" in refused.stderr
    assert tomllib.loads(refused.stdout)["mcp_servers"]["kenso-git"]["cwd"] == str(root)


def test_the_entry_is_printed_whatever_state_the_file_is_in(root: Path) -> None:
    _put(root, ".gemini/settings.json", '{ "mcpServers": { "other": ')
    shown = run_cli(root, "connect", "gemini")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["mcpServers"]["kenso-git"]["cwd"] == str(root)


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers.kenso-git.command = "old"\n',
        'model = "o3"\nmcp_servers.kenso-git.command = "old"\n'
        'mcp_servers.kenso-git.args = ["x"]\nmcp_servers.kenso-git.env.A = "1"\n',
        '[mcp_servers]\nkenso-git.command = "old"\nkenso-git.cwd = "/old"\n',
        'mcp_servers.kenso-git.command = "old"\nmcp_servers.kenso-git.cwd = "/old"\n'
        '[mcp_servers.kenso-git.env]\nA = "1"\n[profiles.fast]\nmodel = "o4"\n',
    ],
)
def test_toml_dotted_keys_are_rewritten_as_the_table_they_are(root: Path, text: str) -> None:
    path = _put(root, ".codex/config.toml", text)
    for _ in range(2):  # the second run reads the dotted keys the first one wrote
        written = run_cli(root, "connect", "codex", "--write")
        assert written.returncode == 0, written.stderr
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        ours = data["mcp_servers"]["kenso-git"]
        assert ours["args"] == ["serve", "--root", str(root)] and ours["cwd"] == str(root)
        assert ours["command"] != "old"
        assert ours.get("env", {"A": "1"}) == {"A": "1"}
        before = tomllib.loads(text)
        assert {k: v for k, v in data.items() if k != "mcp_servers"} == {
            k: v for k, v in before.items() if k != "mcp_servers"
        }


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('model = "o3"\nmcp_servers.kenso-git = "old"\n', 2),
        ('model = "o3"\n\n[mcp_servers]\nother.command = "x"\nkenso-git = 3\n', 5),
        ('model = "o3"\nmcp_servers = "none"\n', 2),
    ],
)
def test_a_toml_value_that_is_no_table_is_refused_naming_its_line(
    root: Path, text: str, line: int
) -> None:
    path = _put(root, ".codex/config.toml", text)
    refused = run_cli(root, "connect", "codex", "--write")
    assert refused.returncode == 2
    assert f"config.toml:{line}:" in refused.stderr and "is not a table" in refused.stderr
    assert tomllib.loads(refused.stdout)["mcp_servers"]["kenso-git"]["command"]
    assert path.read_text(encoding="utf-8") == text


def test_check_of_a_jsonc_file_suggests_what_write_can_do(root: Path) -> None:
    """--check suggested `connect vscode --write`, which leaves a JSONC file untouched."""
    ingest(root)
    text = '{\n  // mine\n  "servers": {"other": {"command": "x"}},\n}\n'
    path = _put(root, ".vscode/mcp.json", text)
    missing = run_cli(root, "connect", "vscode", "--check")
    assert missing.returncode == 2
    assert "--write" not in missing.stderr
    assert "paste what `kenso-git connect vscode` prints" in missing.stderr
    assert "JSONC" in missing.stderr
    shown = run_cli(root, "connect", "vscode")  # the command the hint names works
    assert shown.returncode == 0 and "kenso-git" in json.loads(shown.stdout)["servers"]
    data = json.loads(shown.stdout)
    data["servers"]["kenso-git"]["command"] = "/gone/kenso-git"
    text = text.replace(
        '"servers": {',
        '"servers": {"kenso-git": ' + json.dumps(data["servers"]["kenso-git"]) + ",",
        1,
    )
    path.write_text(text, encoding="utf-8")
    broken = run_cli(root, "connect", "vscode", "--check")
    assert broken.returncode == 1
    assert "--write" not in broken.stdout and "by hand" in broken.stdout
    assert path.read_text(encoding="utf-8") == text


def test_check_of_an_invalid_file_says_to_fix_it(root: Path) -> None:
    _put(root, ".mcp.json", '{\n  "mcpServers": {\n    oops\n}')
    refused = run_cli(root, "connect", "claude-code", "--check")
    assert refused.returncode == 2
    assert ".mcp.json:3:" in refused.stderr and "printed" not in refused.stderr
    assert "hint: fix the file" in refused.stderr
