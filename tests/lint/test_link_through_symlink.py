"""A link through a symlinked folder that leads out of the repository (`ext/page.md`, with
`docs/ext` a link to a folder elsewhere) is a link outside the repository, counted as not
checked offline as `../../outside.md` is: it was reported as a dead link ("does not exist").
Where the link leads is never read (`ext/page.md#anchor` is not judged)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity as fixed_git_identity  # autouse fixture
from tests.gitrepo import git
from tests.gitrepo import write

PAGE = (
    "# A Page\n\nSee [the page](ext/page.md), [its part](ext/page.md#no-such-part), "
    "[above](../../outside.md) and [inside](b.md/c.md).\n"
)


def test_a_link_through_a_symlinked_folder_out_of_the_repository_leaves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"elsewhere/page.md": "# Page\n\nText.\n"})
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"docs/a.md": PAGE, "docs/b.md": "# B\n\nText.\n"})
    (repo / "docs" / "ext").symlink_to("../../elsewhere")
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    shown = CliRunner().invoke(cli, ["lint", "--select", "KS022,KS023", "--detail", "docs"])
    assert "not checked offline: link outside the repository (3)" in shown.stdout
    # a path below a regular file is still dead; nothing else is reported
    assert 'link "b.md/c.md": docs/b.md/c.md does not exist' in shown.stdout
    assert "1 error · 0 warnings" in shown.stdout
    assert "ext/page.md" not in shown.stdout
