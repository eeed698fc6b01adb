"""Locating this installation's `kenso-git` script for shims and MCP client entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kenso_git.repo.executable import find_script
from kenso_git.repo.executable import script_command


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An interpreter's bin/ without a kenso-git script, and an empty PATH."""
    folder = tmp_path / "venv" / "bin"
    folder.mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(folder / "python"))
    monkeypatch.setattr(sys, "argv", ["pytest"])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return folder


def _script(path: Path, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_the_script_beside_the_interpreter_comes_first(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beside = _script(bin_dir / "kenso-git")
    monkeypatch.setenv("PATH", str(_script(tmp_path / "other" / "kenso-git").parent))
    assert find_script() == str(beside)
    assert script_command() == "kenso-git"  # on PATH: the bare name survives a reinstall


def test_find_script_falls_back_to_path_resolving_links(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _script(tmp_path / "real" / "kenso-git")
    link = tmp_path / "links" / "kenso-git"
    link.parent.mkdir()
    link.symlink_to(target)
    monkeypatch.setenv("PATH", str(link.parent))
    assert find_script() == str(target.resolve())


def test_without_any_script_the_shim_records_nothing_and_clients_get_a_guess(
    bin_dir: Path,
) -> None:
    assert find_script() is None
    assert script_command() == str(bin_dir / "kenso-git")


def test_a_non_executable_file_beside_is_not_a_script_for_shims(bin_dir: Path) -> None:
    beside = _script(bin_dir / "kenso-git", mode=0o644)
    assert find_script() is None
    assert script_command() == str(beside)


def test_clients_get_the_invoked_script_when_nothing_else_is_found(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoked = _script(tmp_path / "app" / "kenso-git")
    monkeypatch.setattr(sys, "argv", [str(invoked)])
    assert script_command() == str(invoked.resolve())
