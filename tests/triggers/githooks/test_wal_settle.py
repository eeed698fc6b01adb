"""The index's WAL stays short across processes: syncs empty it, hooks leave it to a child.

A process that opens the index first rebuilds SQLite's WAL index and counts no frame as
copied yet: a WAL left long by the last process was copied again, with three fsyncs, by
the next commit of every later process (every git hook paid it; at 30x the copy was the
whole 267 MB WAL), and the file itself counted in the index's size.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store import stamp
from kenso_git.store.wal import WAL_RESET_BYTES
from kenso_git.store.wal import wal_bytes
from tests.gitrepo import commit_all
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import write
from tests.triggers.githooks.indexdump import hook_env

EXE = Path(sys.executable).with_name("kenso-git")
MANY = 300  # docs whose sync writes well over WAL_RESET_BYTES


def _many_docs(tag: str) -> dict[str, str | bytes]:
    """MANY docs of distinct words, ~20 KB each: their chunks and terms fill a long WAL
    (the chunk text is stored compressed: the distinct words' postings fill most of it)."""
    return {
        f"docs/{tag}/d{i:03d}.md": doc(
            f"{tag} doc {i}",
            "\n\n".join(
                f"## Part {j}\n\n"
                + " ".join(f"w{tag}{i}x{j}y{k} plain words follow here" for k in range(56))
                for j in range(12)
            ),
        )
        for i in range(MANY)
    }


def _indexed(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, {"docs/a.md": doc("Alpha")})
    commit_all(root, "one doc")
    KnowledgeBase.open(root).ingest()
    return root / ".kenso" / "docs.db"


def _found(root: Path, word: str) -> bool:
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)
    try:
        return bool(kb.search(word).hits)
    finally:
        kb.close()


def test_a_sync_process_leaves_no_long_wal(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    db = _indexed(root)
    write(root, _many_docs("big"))
    subprocess.run([str(EXE), "sync"], cwd=root, env=hook_env(), check=True, capture_output=True)
    # Before: the commit copied the WAL but the file stayed (~10 MB here) for the next
    # process to copy again.
    assert wal_bytes(db) == 0
    write(root, {"docs/a.md": doc("Alpha zqsmallchange")})
    subprocess.run([str(EXE), "sync"], cwd=root, env=hook_env(), check=True, capture_output=True)
    assert 0 < wal_bytes(db) < WAL_RESET_BYTES  # a small sync appends, nothing is copied
    assert _found(root, "wbig7x3y5") and _found(root, "zqsmallchange")


def test_a_hook_leaves_copying_the_wal_to_a_detached_child(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    db = _indexed(root)
    git(root, "checkout", "-q", "-b", "big")
    write(root, _many_docs("hook"))
    new = commit_all(root, "many docs")
    old = git(root, "rev-parse", "main").strip()
    env = hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD=str(MANY * 2))  # in the foreground
    proc = subprocess.run(
        [str(EXE), "hook", "post-checkout", old, new, "1"],
        cwd=root,
        env={**env, "KENSO_HOOK_VERBOSE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "foreground" in proc.stderr
    # The hook returned with its rows committed to the WAL; a detached child copies the WAL
    # into the database and empties it (before: it stayed long, for every later process).
    deadline = time.monotonic() + 30
    while (wal_bytes(db) > 0 or not stamp.matches(db)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert wal_bytes(db) == 0
    # and renewed the file's stamp: the next writer need not read every page (#26)
    assert stamp.matches(db)
    assert _found(root, "whook11x4y2")
