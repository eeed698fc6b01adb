"""The summary names the links lint could not check offline (#30), also when every check
passed: "✓ all checks passed" alone read as if the external links had been checked too."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity as fixed_git_identity  # autouse fixture
from tests.gitrepo import git
from tests.gitrepo import write

PAGE = "# A Page\n\nThe [spec](https://example.com/spec) and [a page](b.md).\n"


def test_a_clean_summary_still_says_what_was_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"docs/a.md": PAGE, "docs/b.md": "# B\n\nText.\n"})
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    shown = CliRunner().invoke(cli, ["lint", "--select", "KS022", "docs"])
    assert shown.exit_code == 0, shown.output
    assert "all checks passed" in shown.stdout
    assert "not checked offline: external URL (1)" in shown.stdout


def test_outside_git_a_link_leaving_the_folder_is_not_said_to_leave_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside git, lint's root is the folder it runs from: a link above it was counted as
    a "link outside the repository" where there is no repository."""
    write(tmp_path, {"a.md": "# A\n\nText.\n", "sub/b.md": "# B\n\nBack to [a](../a.md).\n"})
    monkeypatch.chdir(tmp_path / "sub")
    shown = CliRunner().invoke(cli, ["lint", "--select", "KS022", "b.md"])
    assert shown.exit_code == 0, shown.output
    assert "not checked offline: link leaving sub/ outside git (1)" in shown.stdout
    assert "repository" not in shown.stdout
