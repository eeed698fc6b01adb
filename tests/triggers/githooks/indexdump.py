"""Compare an index with a fresh full ingest of the same work tree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import connect_raw

# A doc body long enough to be indexed (shared by the hook tests' `indexed` fixture).
BODY = "explains the widget pipeline in enough words to be indexed properly.\n\n## Usage\n\nMore.\n"

VENV_BIN = str(Path(sys.executable).parent)


def hook_env(**extra: str) -> dict[str, str]:
    """The environment for git commands whose hooks must find this venv's kenso-git."""
    env = os.environ.copy()
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def dump(db_path: Path) -> dict[str, object]:
    """Paths, blob ids, chunks and links of an index, without timestamps or row ids."""
    conn = connect_raw(f"file:{db_path}?mode=ro", uri=True)
    try:
        files = sorted(conn.execute("SELECT path, blob_id, status FROM files"))
        chunks = sorted(
            conn.execute(
                "SELECT file_path, chunk_index, title, section_path, content, "
                "search_extra, category, tags, doc_title FROM chunks"
            ),
            key=repr,
        )
        links = sorted(conn.execute("SELECT source_path, target_path, relation_type FROM links"))
        fts = conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0]
        # The inverted index itself, entry by entry: chunks rewritten in place must leave
        # exactly what a fresh build writes (an external-content table cannot check it).
        conn.execute(
            "CREATE VIRTUAL TABLE temp.fts_entries USING fts5vocab(main, chunks_fts, 'instance')"
        )
        entries = sorted(
            conn.execute(
                "SELECT c.file_path, c.chunk_index, v.term, v.col, v.offset "
                "FROM temp.fts_entries v LEFT JOIN chunks c ON c.id = v.doc"
            ),
            key=repr,
        )
    finally:
        conn.close()
    return {"files": files, "chunks": chunks, "links": links, "fts_rows": fts, "fts": entries}


def fresh_dump(root: Path, scratch: Path) -> dict[str, object]:
    """Dump of a brand-new full ingest of `root` into a database under `scratch`."""
    db_path = scratch / f"fresh-{os.getpid()}-{len(list(scratch.glob('fresh-*')))}.db"
    kb = KnowledgeBase.open(root, db=str(db_path))
    kb.ingest(warn=lambda *_: None)
    kb.close()
    try:
        return dump(db_path)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)


def index_dump(root: Path) -> dict[str, object]:
    return dump(root / ".kenso" / "docs.db")


def ingest(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    kb.ingest(warn=lambda *_: None)
    kb.close()


def is_stale(root: Path) -> bool | None:
    kb = KnowledgeBase.open(root)
    try:
        return kb.state().stale
    finally:
        kb.close()


def wait_for_detached_sync(root: Path, timeout: float = 30.0) -> None:
    """Wait until the sync a hook ran detached from git has landed: the index no longer
    stale and no sync running or pending. (`wait_until_idle` alone could return before the
    detached process has even started.)"""
    import time

    from kenso_git.repo.workspace import find_workspace
    from kenso_git.triggers.githooks.runner import wait_until_idle

    deadline = time.monotonic() + timeout
    while is_stale(root) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert wait_until_idle(find_workspace(root), timeout=max(0.0, deadline - time.monotonic()))
    assert is_stale(root) is False, "the detached sync did not land"
