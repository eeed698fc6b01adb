"""Links into a git submodule: the submodule's files are listed as it has them, so a dead
link into it is found (it passed: the submodule folder counted as holding every path)."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity as fixed_git_identity  # autouse fixture
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

TOP = (
    "# Top\n\nThe [library](../vendor/lib/docs/libpage.md), its [setup](../vendor/lib/SETUP.md)"
    " and a [dead one](../vendor/lib/docs/nope.md).\n"
)


def _parent(tmp_path: Path, *, checked_out: bool) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    write(lib, {"docs/libpage.md": "# Lib\n\nLibrary docs.\n", "SETUP.md": "# Setup\n"})
    commit_all(lib, "lib")
    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    write(top, {"docs/top.md": TOP})
    commit_all(top, "top")
    if not checked_out:
        git(top, "submodule", "deinit", "-q", "--force", "vendor/lib")
    return top


def test_a_dead_link_into_a_submodule_is_found(tmp_path: Path) -> None:
    shown = run(_parent(tmp_path, checked_out=True), "--select", "KS022", "--format", "concise")
    assert shown.returncode == 1, shown.stderr
    found = [line for line in shown.stdout.splitlines() if "KS022" in line]
    assert len(found) == 1 and "nope.md" in found[0], shown.stdout


def test_links_into_a_submodule_not_checked_out_are_said_unchecked(tmp_path: Path) -> None:
    shown = run(_parent(tmp_path, checked_out=False), "--select", "KS022", "docs")
    assert shown.returncode == 0, shown.stderr
    assert "not checked offline: link into a submodule not checked out (3)" in shown.stdout
