"""The index is never more readable than its most private source: created owner-only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo


def test_the_index_and_its_wal_are_created_owner_only(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/secret.md": doc("Secret Plan")})
    (root / "docs" / "secret.md").chmod(0o600)
    old = os.umask(0o022)
    try:
        kb = KnowledgeBase.open(root)
        kb.ingest()
        kb.sync()  # a write through the published file: the WAL comes to life
        (root / "docs" / "more.md").write_text(doc("More Notes"), encoding="utf-8")
        kb.sync()
    finally:
        os.umask(old)
    db = root / ".kenso" / "docs.db"
    created = [p for p in db.parent.iterdir() if p.name.startswith("docs.db")]
    assert db in created
    for path in created:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_kenso_folder_is_created_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    """#27: the folder of the index, the token, the lock and the hook log is 0700."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha Notes")})
    old = os.umask(0o022)
    try:
        KnowledgeBase.open(root).ingest()
    finally:
        os.umask(old)
    assert _mode(root / ".kenso") == 0o700


def test_a_writer_tightens_an_existing_kenso_folder_of_ours(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha Notes")})
    KnowledgeBase.open(root).ingest()
    (root / ".kenso").chmod(0o755)  # made by an older version under umask 022
    (root / "docs" / "b.md").write_text(doc("Beta Notes"), encoding="utf-8")
    KnowledgeBase.open(root).sync()
    assert _mode(root / ".kenso") == 0o700


def test_a_db_folder_of_the_users_choosing_is_left_as_it_is(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha Notes")})
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    KnowledgeBase.open(root, db=str(shared / "docs.db")).ingest()
    assert _mode(shared) == 0o755  # not ours to change: only a missing folder is made 0700
    made = tmp_path / "made" / "here"
    KnowledgeBase.open(root, db=str(made / "docs.db")).ingest()
    assert _mode(made) == 0o700


def test_a_kenso_folder_that_is_a_link_is_not_tightened_through_it(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha Notes")})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    (root / ".kenso").symlink_to(elsewhere)
    with pytest.raises(UsageError, match="symbolic link"):  # a branch may commit the link
        KnowledgeBase.open(root).ingest()
    assert _mode(elsewhere) == 0o755 and not any(elsewhere.iterdir())
