"""#27 finding 5: `connect` never follows a symbolic link for a project file.

A hostile branch commits `.mcp.json` as a link to a secret JSON file outside the repository,
or `.cursor` as a link to the user's `~/.cursor`: writing the entry would copy the secret
into the work tree (where `git add -A` picks it up) or rewrite the user's global config.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.cli.main import main
from kenso_git.connect.clients import plan
from kenso_git.errors import ExitCode
from kenso_git.errors import UsageError
from tests.serve.conftest import make_repo

SECRET = {"mcpServers": {"vault": {"command": "vault", "env": {"TOKEN": "hunter2-secret"}}}}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _connect(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run `kenso-git connect ...` through the real entry (its exit-code handler)."""
    with pytest.raises(SystemExit) as exited:
        main(["connect", *args])
    return int(exited.value.code or 0), capsys.readouterr().err


def _work_tree_text(root: Path) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in root.rglob("*")
        if ".git" not in path.parts and path.is_file() and not path.is_symlink()
    )


def test_a_committed_mcp_json_link_to_a_secret_file_is_refused(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(SECRET), encoding="utf-8")
    (root / ".mcp.json").symlink_to(secret)
    code, err = _connect(capsys, "claude-code", "--write", "--root", str(root))
    assert code == ExitCode.USAGE, err
    assert ".mcp.json is a symbolic link" in err and "hint: a branch may have planted" in err
    assert json.loads(secret.read_text(encoding="utf-8")) == SECRET  # untouched
    assert (root / ".mcp.json").is_symlink() and not (root / ".mcp.json.bak").exists()
    assert "hunter2-secret" not in _work_tree_text(root)


def test_a_committed_cursor_folder_link_never_rewrites_the_users_config(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home_cursor = tmp_path / "home" / ".cursor"
    home_cursor.mkdir(parents=True)
    user_config = home_cursor / "mcp.json"
    user_config.write_text(json.dumps(SECRET), encoding="utf-8")
    (root / ".cursor").symlink_to(home_cursor)
    with pytest.raises(UsageError) as refused:
        plan("cursor", root, tmp_path / "elsewhere", command="/opt/bin/kenso-git")
    assert ".cursor is a symbolic link" in refused.value.message
    code, err = _connect(capsys, "cursor", "--write", "--root", str(root))
    assert code == ExitCode.USAGE, err
    assert json.loads(user_config.read_text(encoding="utf-8")) == SECRET
    assert sorted(p.name for p in home_cursor.iterdir()) == ["mcp.json"]  # no .bak, no temp


def test_a_planted_backup_link_is_refused_before_anything_is_written(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / ".mcp.json").write_text('{"mcpServers": {}}\n', encoding="utf-8")
    victim = tmp_path / "authorized_keys"
    (root / ".mcp.json.kenso-git.bak").symlink_to(victim)
    code, err = _connect(capsys, "claude-code", "--write", "--root", str(root))
    assert code == ExitCode.USAGE, err
    assert ".mcp.json.kenso-git.bak is a symbolic link" in err
    assert not victim.exists()
    assert json.loads((root / ".mcp.json").read_text(encoding="utf-8")) == {"mcpServers": {}}


def test_a_planted_kenso_folder_link_is_never_read_for_an_old_backup(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An original an earlier version kept in `.kenso/backup/` is moved beside the file: a
    branch that commits `.kenso` as a link must not make that move copy what it leads to."""
    (root / ".cursor").mkdir()
    (root / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}\n', encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "backup" / ".cursor").mkdir(parents=True)
    (elsewhere / "backup" / ".cursor" / "mcp.json.bak").write_text(json.dumps(SECRET))
    (root / ".kenso").symlink_to(elsewhere)
    code, err = _connect(capsys, "cursor", "--write", "--root", str(root))
    assert code == 0, err
    kept = root / ".cursor" / "mcp.json.kenso-git.bak"
    assert json.loads(kept.read_text(encoding="utf-8")) == {"mcpServers": {}}
    assert (elsewhere / "backup" / ".cursor" / "mcp.json.bak").is_file()


def test_check_refuses_a_linked_project_file_too(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(SECRET), encoding="utf-8")
    (root / ".mcp.json").symlink_to(secret)
    code, err = _connect(capsys, "claude-code", "--check", "--root", str(root))
    assert code == ExitCode.USAGE, err
    assert ".mcp.json is a symbolic link" in err


def test_a_project_file_that_is_no_link_is_still_written(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _connect(capsys, "cursor", "--write", "--root", str(root))
    assert code == 0, err
    assert "kenso-git" in json.loads((root / ".cursor" / "mcp.json").read_text())["mcpServers"]
