from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.connect.clients import plan
from kenso_git.connect.clients import server_command
from kenso_git.connect.clients import write
from kenso_git.errors import UsageError
from tests.serve.conftest import make_repo

CODEX = """# my codex settings
model = "o4"

[mcp_servers.other]
command = "other-server"
args = ["--flag"]

[mcp_servers.kenso-git]
command = "old-kenso"
args = ["serve", "--old"]

[mcp_servers.kenso-git.env]
OLD = "1"

[profiles.fast]
model = "o4-mini"
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.mark.parametrize(
    ("client", "rel", "key"),
    [
        ("claude-code", ".mcp.json", "mcpServers"),
        ("cursor", ".cursor/mcp.json", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "servers"),
    ],
)
def test_project_json_configs_keep_other_servers_and_get_a_backup(
    root: Path, client: str, rel: str, key: str
) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    original = json.dumps({key: {"other": {"command": "x"}}, "extra": True}, indent=2)
    path.write_text(original, encoding="utf-8")
    result = plan(client, root, Path.home(), command="/opt/kenso/bin/kenso-git")
    backup = write(result)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["extra"] is True
    assert data[key]["other"] == {"command": "x"}
    entry = data[key]["kenso-git"]
    assert entry["command"] == "/opt/kenso/bin/kenso-git"
    assert entry["args"] == ["serve", "--root", str(root)]
    assert (entry.get("type") == "stdio") == (client == "vscode")
    assert backup is not None and backup.read_text(encoding="utf-8") == original
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_writing_twice_replaces_our_entry_only(root: Path) -> None:
    write(plan("claude-code", root, Path.home(), command="kenso-git"))
    write(plan("claude-code", root, Path.home(), command="/new/kenso-git"))
    data = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))
    args = ["serve", "--root", str(root)]
    assert data == {"mcpServers": {"kenso-git": {"command": "/new/kenso-git", "args": args}}}


def test_codex_toml_table_is_replaced_and_the_rest_kept_verbatim(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CODEX, encoding="utf-8")
    write(plan("codex", tmp_path, home, command="kenso-git", user=True))
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert data["mcp_servers"]["kenso-git"] == {
        "command": "kenso-git",
        "args": ["serve"],  # a user entry names no repository: Codex starts it in the project
        "env": {"OLD": "1"},  # the user's keys in our entry are kept
    }
    assert data["mcp_servers"]["other"] == {"command": "other-server", "args": ["--flag"]}
    assert data["profiles"]["fast"]["model"] == "o4-mini"
    assert text.startswith('# my codex settings\nmodel = "o4"\n')
    assert (path.parent / "config.toml.bak").read_text(encoding="utf-8") == CODEX


def test_codex_and_gemini_go_to_the_project_unless_global(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    for user, base in ((False, root), (True, home)):
        write(plan("codex", root, home, command="kenso-git", user=user))
        write(plan("gemini", root, home, command="kenso-git", user=user))
        codex = tomllib.loads((base / ".codex" / "config.toml").read_text(encoding="utf-8"))
        gemini = json.loads((base / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        entry: dict[str, object] = {"command": "kenso-git", "args": ["serve"]}  # --global
        if not user:
            entry = {"command": "kenso-git", "args": ["serve", "--root", str(root)]}
            entry["cwd"] = str(root)
        assert codex == {"mcp_servers": {"kenso-git": entry}}
        assert gemini == {"mcpServers": {"kenso-git": entry}}
    assert not (home / ".mcp.json").exists()


def test_a_file_that_is_not_json_is_refused_naming_the_line(root: Path) -> None:
    (root / ".mcp.json").write_text('{\n  "mcpServers": {\n    oops\n}', encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        plan("claude-code", root, Path.home())
    assert caught.value.line == 3 and ".mcp.json" in caught.value.message


def test_command_is_absolute_when_kenso_git_is_not_on_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    command = server_command()
    assert os.path.isabs(command) and command.endswith("kenso-git")


def test_connect_prints_by_default_and_writes_with_the_flag(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    runner = CliRunner()
    shown = runner.invoke(cli, ["connect", "claude-code"])
    assert shown.exit_code == 0, shown.output
    args = ["serve", "--root", str(root)]
    assert json.loads(shown.stdout)["mcpServers"]["kenso-git"]["args"] == args
    assert not (root / ".mcp.json").exists()
    written = runner.invoke(cli, ["connect", "claude-code", "--write"])
    assert written.exit_code == 0, written.output
    data = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))
    assert data["mcpServers"]["kenso-git"]["args"] == args


def _git_sees(root: Path) -> list[str]:
    import subprocess

    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(line[3:] for line in out.splitlines())


@pytest.mark.parametrize("client", ["claude-code", "cursor", "codex"])
def test_write_keeps_the_original_where_git_does_not_see_it(
    root: Path, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#26: `connect --write` left `.cursor/mcp.json.bak` for `git add -A` to pick up."""
    from kenso_git.connect.clients import CLIENTS

    rel = CLIENTS[client].project
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    original = (
        '[mcp_servers.other]\ncommand = "x"\n'
        if rel.endswith(".toml")
        else '{"mcpServers": {"other": {"command": "x"}}}\n'
    )
    path.write_text(original, encoding="utf-8")
    import subprocess

    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "cfg"],
        cwd=root,
        check=True,
    )
    monkeypatch.chdir(root)
    written = CliRunner().invoke(cli, ["connect", client, "--write"])
    assert written.exit_code == 0, written.output
    assert _git_sees(root) == [rel]  # the rewritten file only: no .bak, no temp file
    backup = root / f"{rel}.kenso-git.bak"  # beside it: `rm -rf .kenso` keeps it
    assert backup.read_text(encoding="utf-8") == original
    assert str(backup) in written.output
    again = CliRunner().invoke(cli, ["connect", client, "--write"])
    assert again.exit_code == 0 and backup.read_text(encoding="utf-8") == original


def test_a_user_file_keeps_its_backup_beside_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {}}\n', encoding="utf-8")
    backup = write(plan("cursor", tmp_path / "repo", home, command="kenso-git", user=True))
    assert backup == path.with_name("mcp.json.bak") and backup.is_file()


@pytest.mark.parametrize("user", [False, True])
def test_check_without_a_file_or_entry_names_the_write_that_makes_it(
    root: Path, tmp_path: Path, user: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    flags = ["--global"] if user else []
    where = tmp_path / "elsewhere"
    where.mkdir()
    monkeypatch.chdir(where)  # the repository named with --root, not the cwd's
    missing = CliRunner().invoke(cli, ["connect", "cursor", "--check", *flags, "--root", str(root)])
    assert isinstance(missing.exception, UsageError)
    want = f"kenso-git connect cursor --write{' --global' if user else ''} --root {root}"
    assert want in str(missing.exception.hint)
    assert "does not exist" in missing.exception.message
    assert str(missing.exception.path) not in missing.exception.message  # said once
    base = tmp_path / "home" if user else root
    path = base / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"mcpServers": {}}\n', encoding="utf-8")
    empty = CliRunner().invoke(cli, ["connect", "cursor", "--check", *flags, "--root", str(root)])
    assert isinstance(empty.exception, UsageError)
    assert want in str(empty.exception.hint)


@pytest.mark.parametrize("client", ["codex", "claude-code"])
def test_a_user_file_kept_as_a_link_is_written_where_it_lives(
    root: Path, tmp_path: Path, client: str
) -> None:
    """Dotfiles kept in a repository of their own and linked into ~ (stow, chezmoi's
    symlink mode): `connect --write --global` replaced the link with a regular file, so the
    entry never reached the dotfiles and the link was gone. It now writes the file the link
    leads to, and the link stays."""
    import subprocess
    import sys

    home = tmp_path / "home"
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    if client == "codex":
        name, text = Path(".codex/config.toml"), '[model]\nname = "x"\n'
    else:
        name, text = Path(".claude.json"), '{"mcpServers": {"other": {"command": "x"}}}\n'
    kept = dotfiles / name.name
    kept.write_text(text, encoding="utf-8")
    link = home / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(kept)
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "connect", client, "--write", "--global"],
        cwd=root,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and link.resolve() == kept.resolve()
    written = kept.read_text(encoding="utf-8")
    assert "kenso" in written and ("other" in written or "[model]" in written)


def test_a_number_json_cannot_hold_is_refused_not_written_as_infinity(root: Path) -> None:
    """`1e400` was read as infinity and written back as `Infinity`: no client could read the
    file any more (Node's JSON.parse refuses it)."""
    before = '{"maxSize": 1e400, "mcpServers": {}}'
    (root / ".mcp.json").write_text(before, encoding="utf-8")
    planned = plan("claude-code", root, Path.home())
    assert planned.merged is None and "out of JSON's range" in planned.why_untouched
    with pytest.raises(UsageError) as caught:
        write(planned)
    assert "out of JSON's range" in caught.value.message
    assert (root / ".mcp.json").read_text(encoding="utf-8") == before


def test_an_escaped_lone_surrogate_is_written_back_escaped(root: Path) -> None:
    """`"\\ud800"` (valid JSON) crashed the write with a UnicodeEncodeError traceback."""
    (root / ".mcp.json").write_text('{"note": "\\ud800 é", "mcpServers": {}}', encoding="utf-8")
    write(plan("claude-code", root, Path.home()))
    text = (root / ".mcp.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["note"] == "\ud800 é" and "kenso-git" in data["mcpServers"]
    assert "\\ud800" in text


def test_codex_toml_with_dotted_keys_beside_an_inline_table_is_merged(tmp_path: Path) -> None:
    """`mcp_servers.other.command = ...` beside `mcp_servers.kenso-git = { ... }` (valid
    TOML: one table spread over the file) was refused as "`mcp_servers` is not a table"."""
    root = make_repo(tmp_path / "repo")
    (root / ".codex").mkdir()
    config = root / ".codex" / "config.toml"
    config.write_text(
        'model = "o3"\nmcp_servers.other.command = "foo"\n'
        'mcp_servers.kenso-git = { command = "old", env = { A = "1" } }\n',
        encoding="utf-8",
    )
    write(plan("codex", root, tmp_path / "home"))
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["model"] == "o3" and data["mcp_servers"]["other"] == {"command": "foo"}
    ours = data["mcp_servers"]["kenso-git"]
    assert ours["command"] == server_command() and ours["env"] == {"A": "1"}
