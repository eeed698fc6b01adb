"""A `.kenso` that a branch committed as a symbolic link is refused by every writer and reader,
and the files kenso-git writes in its folder are private (0600)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.repo.safeopen import ensure_private_dir
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

DOC = "# Doc\n\nSome long enough content for the indexer to take it seriously here.\n"


def _linked_clone(tmp_path: Path) -> tuple[Path, Path]:
    """A clone of a repository whose branch committed `.kenso -> ../outside` (an existing,
    world-readable folder beside the clone), and that folder."""
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o755)
    origin = init_repo(tmp_path / "origin", {"docs/a.md": DOC})
    (origin / ".kenso").symlink_to("../outside")
    git(origin, "add", "-f", ".kenso")
    git(origin, "commit", "-q", "-m", "hostile: .kenso link")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    assert os.readlink(clone / ".kenso") == "../outside"  # checked out as the link
    return clone, outside


def _refused(proc, link: Path) -> None:
    assert proc.returncode == 2, proc.stderr
    assert f"{link} is a symbolic link" in proc.stderr
    assert "rm " in proc.stderr  # the hint says to remove the link


@pytest.mark.parametrize(
    "args",
    [("ingest",), ("sync",), ("search", "content"), ("stats",), ("serve", "--no-watch")],
)
def test_a_linked_kenso_is_refused_and_nothing_is_written_through_it(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    clone, outside = _linked_clone(tmp_path)
    _refused(run_cli(clone, *args), clone / ".kenso")
    assert sorted(os.listdir(outside)) == []
    assert stat.S_IMODE(outside.stat().st_mode) == 0o755  # not ours to change either


def test_serve_over_http_writes_no_token_through_a_linked_kenso(tmp_path: Path) -> None:
    clone, outside = _linked_clone(tmp_path)
    proc = run_cli(clone, "serve", "--transport", "http", "--port", "1", "--no-watch")
    _refused(proc, clone / ".kenso")
    assert sorted(os.listdir(outside)) == []


def test_a_link_planted_after_ingest_stops_the_next_sync(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    assert run_cli(root, "ingest").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    (root / ".kenso").rename(elsewhere)
    (root / ".kenso").symlink_to(elsewhere)
    before = sorted(os.listdir(elsewhere))
    write(root, {"docs/b.md": DOC})
    _refused(run_cli(root, "sync"), root / ".kenso")
    assert sorted(os.listdir(elsewhere)) == before


def _tree(folder: Path) -> dict[str, tuple[int, int, int]]:
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.iterdir()
    }


def test_a_hook_warns_and_writes_nothing_through_a_linked_kenso(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    assert run_cli(root, "ingest").returncode == 0
    before_head = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "side")
    write(root, {"docs/b.md": DOC})
    git(root, "add", "docs/b.md")
    git(root, "commit", "-q", "-m", "b")
    head = git(root, "rev-parse", "HEAD").strip()
    elsewhere = tmp_path / "elsewhere"
    (root / ".kenso").rename(elsewhere)
    (root / ".kenso").symlink_to(elsewhere)
    before = _tree(elsewhere)
    proc = run_cli(root, "hook", "post-checkout", before_head, head, "1")
    assert proc.returncode == 0, proc.stderr  # a hook never fails git
    assert "symbolic link" in proc.stderr
    assert _tree(elsewhere) == before


def test_every_private_folder_writer_refuses_a_linked_kenso(tmp_path: Path) -> None:
    """The lock, the rerun mark, the hook log, the build and the token all come here first."""
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "repo" / ".kenso"
    link.parent.mkdir()
    link.symlink_to(target)
    for create in (True, False):
        with pytest.raises(UsageError) as info:
            ensure_private_dir(link, create=create)
        assert info.value.hint is not None and f"rm {link}" in info.value.hint
    dangling = tmp_path / "other" / ".kenso"
    dangling.parent.mkdir()
    dangling.symlink_to(tmp_path / "missing")
    with pytest.raises(UsageError, match="symbolic link"):
        ensure_private_dir(dangling)
    assert not (tmp_path / "missing").exists()


def test_a_kenso_file_is_refused_as_not_a_folder(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    (root / ".kenso").write_text("not a folder\n", encoding="utf-8")
    proc = run_cli(root, "ingest")
    assert proc.returncode == 2, proc.stderr
    assert f"{root / '.kenso'} is not a folder" in proc.stderr


def test_an_explicit_db_outside_the_repository_still_works(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    chosen = tmp_path / "mine" / "docs.db"
    assert run_cli(root, "ingest", "--db", str(chosen)).returncode == 0
    proc = run_cli(root, "search", "--db", str(chosen), "content")
    assert proc.returncode == 0, proc.stderr
    assert "docs/a.md" in proc.stdout
    assert not (root / ".kenso").exists()


def test_an_explicit_db_beside_a_linked_kenso_is_the_users_choice(tmp_path: Path) -> None:
    clone, outside = _linked_clone(tmp_path)
    chosen = tmp_path / "mine" / "docs.db"
    assert run_cli(clone, "ingest", "--db", str(chosen)).returncode == 0
    proc = run_cli(clone, "search", "--db", str(chosen), "content")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(outside)) == []


def test_the_files_in_kenso_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
        assert run_cli(root, "ingest").returncode == 0
        write(root, {"docs/b.md": DOC})
        assert run_cli(root, "sync").returncode == 0
        assert run_cli(root, "search", "content").returncode == 0
        from kenso_git.index.lock import ask_rerun
        from kenso_git.triggers.githooks.runner import _open_log

        folder = root / ".kenso"
        ask_rerun(folder)
        os.close(_open_log(folder))
    finally:
        os.umask(old)
    modes = {
        name: stat.S_IMODE(os.stat(folder / name).st_mode)
        for name in os.listdir(folder)
        if (folder / name).is_file()
    }
    assert any(name.startswith("git-status-index-") for name in modes), modes
    assert "sync.lock" in modes, modes
    assert {name: mode for name, mode in modes.items() if mode != 0o600} == {}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
