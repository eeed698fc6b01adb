"""`repo/safeopen.py`: no component of a work-tree path is followed when it is a link."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from kenso_git.repo.safeopen import Walker
from kenso_git.repo.safeopen import ensure_private_dir
from kenso_git.repo.safeopen import lstat_beneath
from kenso_git.repo.safeopen import open_beneath
from kenso_git.repo.safeopen import real_path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "docs" / "sub").mkdir(parents=True)
    (root / "docs" / "sub" / "a.md").write_text("alpha", encoding="utf-8")
    (root / "top.md").write_text("top", encoding="utf-8")
    (tmp_path / "secret.md").write_text("secret", encoding="utf-8")
    (root / "docs" / "to-secret.md").symlink_to(tmp_path / "secret.md")
    (root / "linked").symlink_to(root / "docs")
    return root


def _read(root: Path, rel: str) -> bytes:
    with os.fdopen(open_beneath(str(root), rel), "rb") as handle:
        return handle.read()


def test_regular_files_are_opened_at_any_depth(tree: Path) -> None:
    assert _read(tree, "docs/sub/a.md") == b"alpha"
    assert _read(tree, "top.md") == b"top"


@pytest.mark.parametrize("rel", ["docs/to-secret.md", "linked/sub/a.md", "linked/to-secret.md"])
def test_a_link_anywhere_on_the_path_is_refused(tree: Path, rel: str) -> None:
    with pytest.raises(OSError) as refused:
        open_beneath(str(tree), rel)
    assert refused.value.errno in (errno.ELOOP, errno.ENOTDIR)


def test_folders_and_fifos_are_refused_without_waiting(tree: Path) -> None:
    with pytest.raises(IsADirectoryError):
        open_beneath(str(tree), "docs/sub")
    os.mkfifo(tree / "docs" / "pipe.md")  # opening it to read would block without O_NONBLOCK
    with pytest.raises(OSError) as refused:
        open_beneath(str(tree), "docs/pipe.md")
    assert refused.value.errno == errno.EINVAL


def test_lstat_describes_a_last_link_and_refuses_a_linked_folder(tree: Path) -> None:
    assert stat.S_ISLNK(lstat_beneath(str(tree), "docs/to-secret.md").st_mode)
    assert stat.S_ISREG(lstat_beneath(str(tree), "docs/sub/a.md").st_mode)
    with pytest.raises(NotADirectoryError):
        lstat_beneath(str(tree), "linked/sub/a.md")
    with pytest.raises(FileNotFoundError):
        lstat_beneath(str(tree), "docs/missing/a.md")


def test_a_private_folder_is_made_0700_with_its_parents(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        ensure_private_dir(tmp_path / "a" / "b" / ".kenso")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a" / "b" / ".kenso").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o755  # parents as usual


def test_only_an_existing_kenso_folder_is_tightened(tmp_path: Path) -> None:
    for name in (".kenso", "other"):
        (tmp_path / name).mkdir()
        (tmp_path / name).chmod(0o775)
        ensure_private_dir(tmp_path / name)
    assert stat.S_IMODE((tmp_path / ".kenso").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "other").stat().st_mode) == 0o775


def test_real_path_says_none_when_a_link_becomes_a_file_while_it_is_resolved(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`os.path.realpath` lstat's a link, then reads it; a file swapped in between made it
    raise EINVAL (the old code's query-time sync crashed on it in the race probe)."""
    link = tree / "docs" / "to-secret.md"
    readlink = os.readlink

    def swapped_first(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path) == link and link.is_symlink():
            link.unlink()
            link.write_text("now a file", encoding="utf-8")
        return readlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", swapped_first)
    assert real_path(str(link)) is None
    assert real_path(str(link)) == str(link)  # a plain file now


def test_a_walker_keeps_its_folders_and_refuses_links_like_lstat_beneath(tree: Path) -> None:
    with Walker(str(tree)) as walker:
        assert stat.S_ISREG(walker.lstat("docs/sub/a.md").st_mode)
        assert stat.S_ISREG(walker.lstat("top.md").st_mode)
        assert stat.S_ISLNK(walker.lstat("docs/to-secret.md").st_mode)
        with pytest.raises(NotADirectoryError):
            walker.lstat("linked/sub/a.md")
        # a folder swapped for a link after it was opened: the kept one is looked in,
        # never the link's target
        (tree / "docs").rename(tree / "moved")
        (tree / "docs").symlink_to(tree.parent)
        assert stat.S_ISREG(walker.lstat("docs/sub/a.md").st_mode)
        with pytest.raises(FileNotFoundError):
            walker.lstat("docs/secret.md")  # tree.parent/secret.md exists, beyond the link
    with Walker(str(tree)) as fresh, pytest.raises(NotADirectoryError):
        fresh.lstat("docs/sub/a.md")
