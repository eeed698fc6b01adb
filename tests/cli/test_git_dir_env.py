"""GIT_DIR and GIT_WORK_TREE name the repository for kenso-git as they do for git: run from
outside the checkout, `changed` said "this folder is not in a git repository" and `search`
looked for `.kenso/docs.db` in the current folder, while `git log` worked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

PAGE = "# Page\n\nThe pelican page has enough words in it to be indexed by the tool here.\n"


def _run(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _checkout(root: Path) -> Path:
    init_repo(root, {"docs/p.md": PAGE})
    git(root, "tag", "v1")
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    write(root, {"docs/new.md": PAGE.replace("# Page", "# New page")})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "new page")
    return root


def test_changed_and_search_from_outside_follow_git_dir_and_work_tree(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "repo")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {"GIT_DIR": str(root / ".git"), "GIT_WORK_TREE": str(root)}

    changed = _run(outside, env, "changed", "--since", "v1", "--json")
    found = _run(outside, env, "search", "pelican", "--format", "tsv")

    assert changed.returncode == 0, changed.stderr
    assert [r["path"] for r in json.loads(changed.stdout)["results"]] == ["docs/new.md"]
    assert found.returncode == 0, found.stderr
    assert {line.split("\t")[0] for line in found.stdout.splitlines()} == {
        "docs/new.md",
        "docs/p.md",
    }
    assert not (outside / ".kenso").exists()


def test_git_dir_wins_over_the_repository_of_the_current_folder(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "repo")
    other = init_repo(tmp_path / "other", {"docs/o.md": "# Other\n\nNothing here.\n"})
    git(other, "tag", "v1")
    env = {"GIT_DIR": str(root / ".git"), "GIT_WORK_TREE": str(root)}

    changed = _run(other / "docs", env, "changed", "--since", "v1", "--json")

    assert changed.returncode == 0, changed.stderr
    assert [r["path"] for r in json.loads(changed.stdout)["results"]] == ["docs/new.md"]


def test_git_dir_relative_from_the_work_tree_as_in_a_hook(tmp_path: Path, monkeypatch) -> None:
    root = _checkout(tmp_path / "repo")
    monkeypatch.chdir(root / "docs")
    monkeypatch.setenv("GIT_DIR", "../.git")
    monkeypatch.setenv("GIT_WORK_TREE", "..")

    ws = find_workspace()

    assert (ws.root, ws.git_dir) == (root.resolve(), (root / ".git").resolve())


def test_git_dir_without_a_work_tree_from_outside_says_to_set_git_work_tree(
    tmp_path: Path,
) -> None:
    root = _checkout(tmp_path / "repo")
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    proc = _run(outside, {"GIT_DIR": str(root / ".git")}, "changed", "--since", "v1")

    assert proc.returncode == 2
    assert f"GIT_DIR={root / '.git'}" in proc.stderr
    assert f"its work tree {outside.resolve()} does not hold" in proc.stderr
    assert "GIT_WORK_TREE" in proc.stderr.split("hint:")[1]


def test_git_dir_naming_no_repository_is_an_error_that_names_it(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    proc = _run(outside, {"GIT_DIR": str(tmp_path / "nothing")}, "search", "pelican")

    assert proc.returncode == 2
    assert f"GIT_DIR={tmp_path / 'nothing'} names no git repository" in proc.stderr
