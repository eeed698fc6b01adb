"""kenso-git's copy of git's index (repo/statusindex.py) lives in the index's own folder,
never in the git dir: a read writes nothing but its own index's root. Work trees sharing
one index folder keep one copy each; the copy an earlier kenso-git left in `.git/` is
removed by the next sync that writes and by `hooks uninstall`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

LEGACY = ("kenso-git-status-index", "kenso-git-status-index.source")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "apples grow here. " * 20)})
    ok = run_cli(root, "ingest", "--no-lint")
    assert ok.returncode == 0, ok.stderr
    return root


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its inode and mtime: a rewrite changes one of them."""
    return {
        str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def _copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("git-status-index-*") if "." not in p.name)


def test_reads_never_write_into_the_git_dir(repo: Path) -> None:
    for name in LEGACY:  # as if made before: a read must not make (or rewrite) it
        (repo / ".git" / name).unlink(missing_ok=True)
    (repo / "docs/new.md").write_text(doc("Walrus", "walrus text here. " * 20))
    before = _tree(repo / ".git")
    for args in (
        ("state",),
        ("search", "walrus"),
        ("related", "docs/a.md"),
        ("search", "apples", "--ref", "HEAD"),
        ("stats",),
    ):
        proc = run_cli(repo, *args)
        assert proc.returncode == 0, (args, proc.stderr)
    assert _tree(repo / ".git") == before
    assert len(_copies(repo / ".kenso")) == 1  # the statuses ran on the copy there


def test_an_index_named_elsewhere_keeps_the_copy_in_its_own_folder(repo: Path) -> None:
    other = repo.parent / "elsewhere"
    db = other / "docs.db"
    ok = run_cli(repo, "ingest", "--no-lint", "--db", str(db))
    assert ok.returncode == 0, ok.stderr
    for copy in (repo / ".kenso").glob("git-status-index-*"):
        copy.unlink()
    (repo / "docs/new.md").write_text(doc("Walrus", "walrus text here. " * 20))
    found = run_cli(repo, "search", "walrus", "--db", str(db))
    assert found.returncode == 0 and "docs/new.md" in found.stdout, found.stderr
    assert _copies(repo / ".kenso") == []  # not the default index's root
    assert len(_copies(other)) == 1


def test_work_trees_sharing_one_index_folder_keep_a_copy_each(repo: Path) -> None:
    linked = repo.parent / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    shared = repo.parent / "shared"
    for root, name in ((repo, "main.db"), (linked, "linked.db")):
        ok = run_cli(root, "ingest", "--no-lint", "--db", str(shared / name))
        assert ok.returncode == 0, ok.stderr
        write(root, {"docs/new.md": doc("Walrus", "walrus text here. " * 20)})
        found = run_cli(root, "search", "walrus", "--db", str(shared / name))
        assert found.returncode == 0 and "docs/new.md" in found.stdout, found.stderr
    assert len(_copies(shared)) == 2


def test_the_copy_an_earlier_version_left_in_git_is_removed_by_a_writing_sync(
    repo: Path,
) -> None:
    for name in LEGACY:
        (repo / ".git" / name).write_bytes(b"old copy")
    assert run_cli(repo, "state").returncode == 0
    assert all((repo / ".git" / name).exists() for name in LEGACY)  # a read leaves .git be
    (repo / "docs/a.md").write_text(doc("Alpha", "pears grow here now. " * 20))
    assert run_cli(repo, "sync").returncode == 0
    assert not any((repo / ".git" / name).exists() for name in LEGACY)


def test_hooks_uninstall_removes_the_copy_an_earlier_version_left_in_git(repo: Path) -> None:
    assert run_cli(repo, "hooks", "install").returncode == 0
    for name in LEGACY:
        (repo / ".git" / name).write_bytes(b"old copy")
    gone = run_cli(repo, "hooks", "uninstall")
    assert gone.returncode == 0, gone.stderr
    assert not any((repo / ".git" / name).exists() for name in LEGACY)
