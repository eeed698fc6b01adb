"""The scope gate's same-bytes check (`index.rewritten`), a read path, must never wait and
never open what a link leads to.

- `restat` recorded the new stat data through a writer whose SQLite busy timeout is 60 s;
  the detached WAL settler writes without the kenso lock, so a search could wait on it far
  past its call budget. It now skips (best effort) when SQLite's write lock is held.
- `rewritten_same` opened `root/rel` following links: a link swapped in after the gate's
  `lstat` was opened (a FIFO or device there can have effects by being opened). It now opens
  with `safeopen.open_beneath` (no link followed, O_NONBLOCK).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.index.rewritten import rewritten_same
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store.files import load_files
from tests.serve.test_rewritten_same_bytes import _indexed_inode
from tests.serve.test_rewritten_same_bytes import _marked_repo
from tests.serve.test_rewritten_same_bytes import _rewrite


async def _search(root: Path) -> str:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool("search_docs", {"query": "pelicans"})
    assert not result.is_error, result
    return str(result.structured_content or result.content)


@pytest.mark.anyio
@pytest.mark.timeout(40)  # the writer's busy timeout is 60 s: a wait on it fails here
async def test_a_held_sqlite_write_lock_is_not_waited_for_by_a_search(tmp_path: Path) -> None:
    root = _marked_repo(tmp_path / "repo")
    b = root / "docs/b.md"
    before = _indexed_inode(KnowledgeBase.open(root), "docs/b.md")
    _rewrite(b, b.read_bytes())
    held = sqlite3.connect(root / ".kenso" / "docs.db", isolation_level=None)
    held.execute("BEGIN IMMEDIATE")  # as the WAL settler does, without the kenso lock
    try:
        assert "docs/b.md" in await _search(root)  # served, the restat skipped
    finally:
        held.execute("ROLLBACK")
        held.close()
    assert _indexed_inode(KnowledgeBase.open(root), "docs/b.md") == before  # nothing written
    assert "docs/b.md" in await _search(root)
    assert _indexed_inode(KnowledgeBase.open(root), "docs/b.md") == b.stat().st_ino


def test_a_link_swapped_in_after_the_gates_stat_is_not_followed(tmp_path: Path) -> None:
    """The vetted file moved away and a link to it put at its path: opening the path follows
    no link, so nothing is opened through it (even the very file vetted)."""
    root = _marked_repo(tmp_path / "repo")
    b = root / "docs/b.md"
    _rewrite(b, b.read_bytes())
    row = KnowledgeBase.open(root).read(lambda conn: load_files(conn, ["docs/b.md"]))["docs/b.md"]
    st = os.lstat(b)  # what the gate vetted
    assert rewritten_same(root, "docs/b.md", st, row) is not None
    elsewhere = tmp_path / "elsewhere.md"
    os.replace(b, elsewhere)
    b.symlink_to(elsewhere)
    assert rewritten_same(root, "docs/b.md", st, row) is None


@pytest.mark.anyio
@pytest.mark.timeout(60)  # a hang on the FIFO fails here
@pytest.mark.parametrize("kind", ["fifo", "link-to-fifo"])
async def test_a_fifo_swapped_in_for_a_doc_is_answered_at_once_and_not_served(
    tmp_path: Path, kind: str
) -> None:
    root = _marked_repo(tmp_path / "repo", extra="watch = false\nquery-sync = false\n")
    b = root / "docs/b.md"
    _rewrite(b, b.read_bytes())  # a new inode: the gate reads the file to vet it
    b.unlink()
    if kind == "fifo":
        os.mkfifo(b)
    else:
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        b.symlink_to(fifo)
    assert "docs/b.md" not in await _search(root)
