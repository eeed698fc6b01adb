"""The refusal of a `.kenso` that is a symbolic link names the path once and offers what works
for every command (remove the link; KENSO_DATABASE_URL; --db where there is one; a real
folder for the HTTP token), and `hooks install` refuses it before writing any hook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli

DOC = "# Doc\n\nSome long enough content for the indexer to take it seriously here.\n"


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose `.kenso` is a link to `../store` (an existing folder), and the link."""
    (tmp_path / "store").mkdir()
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    link = root / ".kenso"
    link.symlink_to("../store")
    return root, link


@pytest.mark.parametrize(
    "args",
    [("changed", "--since", "HEAD"), ("drift",), ("ingest",), ("hooks", "install")],
)
def test_the_refusal_names_the_link_once_and_a_remedy_every_command_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    monkeypatch.delenv("KENSO_DATABASE_URL", raising=False)
    root, link = _linked(tmp_path)
    proc = run_cli(root, *args)
    assert proc.returncode == 2, proc.stderr
    error, hint = proc.stderr.split("\n  hint: ", 1)
    assert error.count(str(link)) == 1, error
    assert f"{link} is a symbolic link (to ../store)" in error
    assert f"rm {link}" in hint
    assert "KENSO_DATABASE_URL" in hint
    assert "--db where the command has it" in hint
    assert "serve --transport http" in hint and "real .kenso folder" in hint


def test_kenso_database_url_the_hint_offers_works_for_changed_and_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = _linked(tmp_path)
    monkeypatch.setenv("KENSO_DATABASE_URL", str(tmp_path / "mine" / "docs.db"))
    assert run_cli(root, "ingest").returncode == 0
    for args in (("changed", "--since", "HEAD"), ("drift",)):
        proc = run_cli(root, *args)
        assert proc.returncode in (0, 1), proc.stderr
        assert "symbolic link" not in proc.stderr
    assert os.listdir(tmp_path / "store") == []


def test_hooks_install_refuses_a_linked_kenso_before_writing_any_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KENSO_DATABASE_URL", raising=False)
    root, link = _linked(tmp_path)
    hooks = Path(git(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks").strip())
    before = sorted(os.listdir(hooks)) if hooks.is_dir() else []
    proc = run_cli(root, "hooks", "install")
    assert proc.returncode == 2, proc.stderr
    assert "no hook was installed" in proc.stderr
    assert (sorted(os.listdir(hooks)) if hooks.is_dir() else []) == before
    assert os.listdir(tmp_path / "store") == []
    link.unlink()  # the remedy the hint names first
    proc = run_cli(root, "hooks", "install")
    assert proc.returncode == 0, proc.stderr
    assert "post-checkout" in os.listdir(hooks)
