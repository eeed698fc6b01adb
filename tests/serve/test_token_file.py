"""The HTTP token file: only a private regular file of ours, never through a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.serve.http.transport import ensure_token


def _private(path: Path, text: str = "s" * 40) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def test_a_new_token_is_created_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / ".kenso" / "http.token"
    token = ensure_token(path)
    assert ensure_token(path) == token and len(token) >= 32


def test_a_symlink_to_another_private_file_is_not_a_token(tmp_path: Path) -> None:
    other = _private(tmp_path / "id_secret")
    path = tmp_path / "http.token"
    path.symlink_to(other)
    with pytest.raises(UsageError, match="symbolic link"):
        ensure_token(path)


@pytest.mark.parametrize("kind", ["dangling", "folder"])
def test_a_dangling_link_or_a_folder_is_a_clear_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "http.token"
    if kind == "dangling":
        path.symlink_to(tmp_path / "missing")
    else:
        path.mkdir(mode=0o700)
    with pytest.raises(UsageError) as info:
        ensure_token(path)
    assert str(path) in info.value.message and info.value.hint


@pytest.mark.timeout(30)
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "http.token"
    os.mkfifo(path, 0o600)
    with pytest.raises(UsageError, match="not a regular file"):
        ensure_token(path)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_token_file_of_another_user_is_refused(tmp_path: Path) -> None:
    path = _private(tmp_path / "http.token")
    os.chown(path, 65534, 65534)
    with pytest.raises(UsageError, match="another user"):
        ensure_token(path)
