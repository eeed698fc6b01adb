"""Free pages stay bounded (#16): a new index is made with auto_vacuum=INCREMENTAL, and a
writer that leaves more than FREE_SHARE of the file and FREE_BYTES free returns them (a
CLI's writer as it closes, a hook's through its detached settle child). Counted in pages.

Before, nothing returned them: at 30x, 27 hooked checkouts left 130 MB of 934 MB free.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store import wal
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

DOCS = 100


def _docs(tag: str, which: range) -> dict[str, str | bytes]:
    """Docs of words unique to `tag`: each round's postings replace the last round's."""
    return {
        f"docs/d{i:03d}.md": doc(
            f"Doc {i}",
            "\n\n".join(
                f"## Part {j}\n\n" + " ".join(f"w{tag}x{i}y{j}z{k} words" for k in range(60))
                for j in range(10)
            ),
        )
        for i in which
    }


def _pages(db: Path) -> tuple[int, int, int, int]:
    """(auto_vacuum, free pages, pages, page size) of the index, WAL included."""
    conn = sqlite3.connect(db)
    try:
        return tuple(  # type: ignore[return-value]
            conn.execute(f"PRAGMA {p}").fetchone()[0]
            for p in ("auto_vacuum", "freelist_count", "page_count", "page_size")
        )
    finally:
        conn.close()


def _within_bound(db: Path) -> bool:
    _, free, pages, size = _pages(db)
    return free * size <= wal.FREE_BYTES or free <= pages * wal.FREE_SHARE


def _round(root: Path, n: int) -> None:
    """Rewrite every doc with new words, and delete half of them every other round."""
    for path in (root / "docs").glob("*.md"):
        path.unlink()
    write(root, _docs(f"r{n}", range(0, DOCS, 1 + n % 2)))


def test_a_cli_writer_returns_free_pages_past_the_bound(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", _docs("r0", range(DOCS)))
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    assert _pages(db)[0] == 2  # INCREMENTAL
    for n in range(1, 7):  # before: up to 61% (3 MB) of the file free after a round
        _round(root, n)
        kb.ingest()
        assert _within_bound(db), (n, _pages(db))
    kb.close()
    assert kb.search("wr6x2y3z4").hits


_HOOK_SYNC = """
import os, sys
from pathlib import Path
from kenso_git.kb import KnowledgeBase
from kenso_git.store import wal
wal.defer_checkpoints()  # as hook_main does
kb = KnowledgeBase.open(Path(sys.argv[1]))
kb.sync()
kb.close()
pid = wal.settle_detached(kb.db_path)
if pid is not None:
    os.waitpid(pid, 0)
print(pid is not None)
"""


def test_a_hook_leaves_returning_free_pages_to_its_settle_child(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", _docs("r0", range(DOCS)))
    KnowledgeBase.open(root).ingest()
    db = root / ".kenso" / "docs.db"
    spawned = []
    # which round leaves pages past the bounds depends on page reuse: seven rounds hold two
    for n in range(1, 8):
        _round(root, n)
        out = subprocess.run(
            [sys.executable, "-c", _HOOK_SYNC, str(root)],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        spawned.append(out.strip() == "True")
        assert _within_bound(db), (n, _pages(db))
    assert any(spawned)  # the hook itself returned no page: its child did


def test_an_index_made_before_is_left_as_it_is(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", _docs("r0", range(4)))
    db = root / ".kenso" / "docs.db"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t(x)")  # an index file of auto_vacuum NONE
    conn.execute("INSERT INTO t VALUES (randomblob(3000000))")
    conn.execute("DELETE FROM t")
    conn.commit()
    assert not wal.too_free(conn)  # its free pages cannot be returned
    wal.vacuum(conn)  # and trying does not loop
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] > 700
    conn.close()
