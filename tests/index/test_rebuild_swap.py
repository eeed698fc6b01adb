"""`ingest --rebuild` swaps the new index in: a reader arriving at any moment of it finds an
index, the old one or the new one, never none (#26: concurrent readers got "no search index
... run ingest once" 18 times in 60 s, between the old file's removal and the new one's link).

Every file-system step the rebuild takes in Python (removing, linking, renaming, opening a
file or a database) is an audit event; at each one a reader opens the index then and there.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from kenso_git.errors import KensoError
from kenso_git.kb import KnowledgeBase
from kenso_git.store.connection import PAGE_BYTES
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

OLD = {f"docs/d{i}.md": doc(f"Doc {i}", f"topic{i} words to index here. " * 30) for i in range(6)}
NEW = {f"docs/n{i}.md": doc(f"New {i}", f"fresh{i} words to index here. " * 30) for i in range(3)}
STEPS = {"os.remove", "os.link", "os.rename", "open", "sqlite3.connect", "shutil.move"}

_watch: dict[str, object] = {"db": None, "busy": False, "seen": None, "steps": 0}


def _audit(event: str, _args: tuple[object, ...]) -> None:
    db = _watch["db"]
    if db is None or _watch["busy"] or event not in STEPS:
        return
    _watch["busy"] = True
    try:
        _watch["steps"] = int(str(_watch["steps"])) + 1
        reader = KnowledgeBase.open(Path(str(db)).parents[1])
        reader.settings = reader.settings._replace(query_sync=False)
        try:
            documents = reader.state(check_stale=False).documents
        except KensoError as err:
            seen = _watch["seen"]
            assert isinstance(seen, list)
            seen.append(f"{event}: {err.message}")
        else:
            seen = _watch["seen"]
            assert isinstance(seen, list)
            seen.append(documents)
        finally:
            reader.close()
    finally:
        _watch["busy"] = False


sys.addaudithook(_audit)  # cannot be removed: it acts only while _watch["db"] is set


@pytest.mark.parametrize("old_pages", [PAGE_BYTES, 4096], ids=["same pages", "4 KB pages"])
def test_a_reader_always_finds_the_old_or_the_new_index(tmp_path: Path, old_pages: int) -> None:
    root = init_repo(tmp_path / "repo", OLD)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    if old_pages != PAGE_BYTES:  # an index made before 16 KB pages (the rebuild converts it)
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute(f"PRAGMA page_size={old_pages}")
        conn.execute("VACUUM")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
    write(root, NEW)  # the rebuild indexes these too: old 6 documents, new 9
    _watch.update(db=db, seen=[], steps=0)
    try:
        kb.ingest(rebuild=True)
    finally:
        _watch["db"] = None
    kb.close()
    seen = _watch["seen"]
    assert isinstance(seen, list) and int(str(_watch["steps"])) > 3
    assert [s for s in seen if s not in (6, 9)] == []
    assert seen[-1] == 9
    final = KnowledgeBase.open(root)
    assert final.state(check_stale=False).documents == 9
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA page_size").fetchone()[0] == PAGE_BYTES
    final.close()
    assert not list(db.parent.glob("docs.db.building-*"))


def test_a_server_holding_the_index_open_reads_the_new_one(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", OLD)
    KnowledgeBase.open(root).ingest()
    server = KnowledgeBase.open(root)  # a long-lived reader, as `serve` keeps one per thread
    server.settings = server.settings._replace(query_sync=False)
    assert server.state(check_stale=False).documents == 6
    write(root, NEW)
    KnowledgeBase.open(root).ingest(rebuild=True)
    assert server.state(check_stale=False).documents == 9
    assert [h.file_path for h in server.search("fresh1").hits] == ["docs/n1.md"]
    server.close()


def test_a_reader_waits_for_a_swap_by_link_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the content cannot be copied in (a damaged index, or another page size while
    a reader holds it), the old file is unlinked and the new one linked: a reader that
    finds no index meanwhile waits for the link instead of saying there is none."""
    from kenso_git.store import publish
    from kenso_git.store.connection import open_reader

    root = init_repo(tmp_path / "repo", OLD)
    KnowledgeBase.open(root).ingest()
    db = root / ".kenso" / "docs.db"
    build = db.with_name(f"docs.db.building-{os.getpid()}")
    os.rename(db, build)  # the swap under way: the old file unlinked, the new not yet linked
    marker = Path(f"{build}-swap")
    marker.touch()
    waits: list[float] = []

    def link_meanwhile(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:  # the publisher links the new index while the reader waits
            os.link(build, db)
            build.unlink()
            marker.unlink()

    monkeypatch.setattr(publish.time, "sleep", link_meanwhile)
    conn = open_reader(db)
    conn.close()
    assert len(waits) == 3
    db.unlink()
    with pytest.raises(KensoError):  # no swap under way: no index, at once
        open_reader(db)
    assert len(waits) == 3
