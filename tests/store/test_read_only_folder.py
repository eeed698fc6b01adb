"""A clean index in a read-only `.kenso/` can be read: WAL needs a `-shm` it cannot create
there, so the reader opens the file immutable instead (#26). An index whose WAL still holds
commits is not read that way (it would miss them): the error names the folder."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kenso_git.errors import DatabaseError
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

DOCS = {f"docs/d{i}.md": doc(f"Doc {i}", f"apples number {i} grow here. " * 20) for i in range(4)}


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only: by its mode for a user, by a read-only bind mount for root (whom
    modes do not stop; needs CAP_SYS_ADMIN, else the test is skipped)."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root in a mount namespace)")
    try:
        remount = ["mount", "-o", "remount,ro,bind", str(folder)]
        assert subprocess.run(remount, capture_output=True).returncode == 0
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", DOCS)
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert not Path(f"{root}/.kenso/docs.db-shm").exists()  # a clean index: WAL emptied
    return root


def test_cli_reads_a_clean_index_in_a_read_only_folder(indexed: Path) -> None:
    with read_only(indexed / ".kenso"):
        found = cli(indexed, "search", "apples", "--json")
        assert found.returncode == 0, found.stderr
        assert "docs/d1.md" in found.stdout
        stats = cli(indexed, "stats", "--json")
        assert stats.returncode == 0 and '"documents": 4' in stats.stdout, stats.stderr
        state = cli(indexed, "state")
        assert state.returncode == 0, state.stderr
        assert not list((indexed / ".kenso").glob("docs.db-*"))


def test_an_edit_is_answered_stale_from_a_read_only_index(indexed: Path) -> None:
    write(indexed, {"docs/d1.md": doc("Doc 1", "pears replaced the apples. " * 20)})
    with read_only(indexed / ".kenso"):
        kb = KnowledgeBase.open(indexed)
        try:
            payload = kb.search_docs("apples")
            assert any(hit["file_path"] == "docs/d0.md" for hit in payload)
            assert kb.freshness.stale and kb.freshness.reason
            assert kb.get_doc("docs/d0.md") is not None
        finally:
            kb.close()


def test_an_index_whose_wal_holds_commits_is_not_read_without_them(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    code = (
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA wal_autocheckpoint=0')\n"
        "conn.execute(\"INSERT OR REPLACE INTO meta VALUES ('junk', 'x')\")\n"
        "os.kill(os.getpid(), 9)\n"
    )
    subprocess.run(["python3", "-c", code, str(db)], check=False)
    Path(f"{db}-shm").unlink()
    assert Path(f"{db}-wal").stat().st_size > 0
    with read_only(indexed / ".kenso"):
        with pytest.raises(DatabaseError) as caught:
            KnowledgeBase.open(indexed).state()
        assert "read-only" in caught.value.message and caught.value.hint
    with sqlite3.connect(db) as conn:  # once writable, the commit is there
        assert conn.execute("SELECT value FROM meta WHERE key = 'junk'").fetchone() == ("x",)
