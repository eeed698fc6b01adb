"""In a linked worktree or a `git init --separate-git-dir` checkout, git exports GIT_DIR
(and no GIT_WORK_TREE) into hooks, aliases and `rebase -x`; with no work tree named it
takes the current folder as the top. A pre-commit hook `cd docs && kenso-git lint --staged`
rooted the checkout at docs/ and refused every commit ("its work tree .../docs does not
hold ... as its .git"); the checkout whose `.git` is GIT_DIR is now found above the folder."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

PAGE = "# Alpha guide\n\nSome text about alpha things and more words here to pass the minimum.\n"
BROKEN = PAGE + "\nSee [the setup](nowhere.md).\n"


def _linked_worktree(tmp_path: Path) -> tuple[Path, Path]:
    main = init_repo(tmp_path / "main", {"docs/alpha.md": PAGE})
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "w")
    return tmp_path / "wt", main / ".git" / "hooks"


def _separate_git_dir(tmp_path: Path) -> tuple[Path, Path]:
    sep, git_dir = tmp_path / "sep", tmp_path / "sepgit"
    git(tmp_path, "init", "-q", "-b", "main", "--separate-git-dir", str(git_dir), str(sep))
    write(sep, {"docs/alpha.md": PAGE})
    git(sep, "add", "-A")
    git(sep, "commit", "-qm", "initial")
    return sep, git_dir / "hooks"


LAYOUTS = {"linked-worktree": _linked_worktree, "separate-git-dir": _separate_git_dir}


@pytest.fixture(params=sorted(LAYOUTS))
def checkout(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path]:
    """A checkout whose hooks git runs with GIT_DIR set, and that hooks folder."""
    return LAYOUTS[request.param](tmp_path)


def _commit(root: Path, message: str) -> subprocess.CompletedProcess[str]:
    git(root, "add", "docs/alpha.md")
    return subprocess.run(
        ["git", "commit", "-qm", message],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_commit_hook_linting_from_a_subfolder_finds_the_checkout(
    checkout: tuple[Path, Path],
) -> None:
    root, hooks = checkout
    seen = root.parent / "hook-saw-git-dir"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "pre-commit"
    hook.write_text(
        f'#!/bin/sh\nprintf %s "$GIT_DIR" > {shlex.quote(str(seen))}\n'
        f"cd docs && exec {shlex.quote(sys.executable)} -m kenso_git lint --staged "
        "--select KS022 --format concise\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)

    write(root, {"docs/alpha.md": PAGE + "\nMore words.\n"})
    clean = _commit(root, "more words")
    write(root, {"docs/alpha.md": BROKEN})
    broken = _commit(root, "a dead link")

    assert seen.read_text(encoding="utf-8"), "git ran the hook without GIT_DIR"
    # before: both refused with exit 2, "its work tree .../docs does not hold ... as its .git"
    assert clean.returncode == 0, clean.stderr
    assert broken.returncode != 0
    assert "docs/alpha.md:5:" in broken.stdout + broken.stderr
    assert "KS022" in broken.stdout + broken.stderr
    assert "does not hold" not in broken.stderr


def test_git_dir_alone_from_a_subfolder_names_the_checkout_holding_it(
    checkout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _hooks = checkout
    git_dir = Path(git(root, "rev-parse", "--absolute-git-dir").strip())
    (root / "docs" / "deep").mkdir()
    monkeypatch.chdir(root / "docs" / "deep")
    monkeypatch.setenv("GIT_DIR", os.fspath(git_dir))

    ws = find_workspace()

    assert (ws.root, ws.git_dir) == (root.resolve(), git_dir.resolve())
