"""A doc whose mtime is ahead of the clock (`touch -d '+1 day'`, an unpacked archive, clock
skew) is racy: its stat data cannot vouch for its bytes until the clock passes the mtime.
Before, every query's freshness check synced it again, writing its files row (one write
transaction per `search`) though neither its bytes nor its blob id changed. Now a racy doc
is settled by reading its bytes (or by its ctime, which no `touch` sets back): once its
bytes were found to be the indexed ones, a query with the same stat data writes nothing,
and an edit (which the ctime gives away even under the same mtime and size) is synced."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

PAGE = doc("Widget page", "The widget explains configuration of widget systems. " * 3)
EDITED = doc("Gadget page", "The gadget explains configuration of gadget systems. " * 3)
AHEAD_NS = 86_400 * 10**9  # a day ahead of the clock, as `touch -d '+1 day'` stamps it


def _stamp_ahead(path: Path) -> int:
    ahead = time.time_ns() + AHEAD_NS
    os.utime(path, ns=(ahead, ahead))
    return ahead


@pytest.fixture(params=["git", "walk"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """docs/p.md indexed by `ingest`, in a git repository (the check asks `git status`)
    and in a plain folder (the check walks the tree)."""
    files: dict[str, str | bytes] = {"docs/p.md": PAGE, ".gitignore": ".kenso/\n"}
    root = tmp_path / "tree"
    if request.param == "git":
        init_repo(root, files)
    else:
        write(root, files)
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return root


class Writes:
    """Whether the index was written between two looks: SQLite's `data_version` changes for
    a connection when another connection committed a write to the database."""

    def __init__(self, root: Path) -> None:
        self.conn = sqlite3.connect(root / ".kenso" / "docs.db", isolation_level=None)
        self.version = self._version()

    def _version(self) -> int:
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def since_last(self) -> bool:
        now = self._version()
        wrote, self.version = now != self.version, now
        return wrote


def _search(root: Path, word: str) -> list[str]:
    proc = cli(root, "search", word, "--json")
    assert proc.returncode == 0, proc.stderr
    return sorted({hit["file_path"] for hit in json.loads(proc.stdout)})


def test_a_doc_stamped_ahead_is_written_once_then_queries_write_nothing(tree: Path) -> None:
    _stamp_ahead(tree / "docs/p.md")
    writes = Writes(tree)
    wrote = []
    for _ in range(3):
        assert _search(tree, "widget") == ["docs/p.md"]
        wrote.append(writes.since_last())
    # the first query syncs the new stat data (its bytes are the indexed ones); after
    # that the stat data is the same and a read writes nothing
    assert wrote == [True, False, False]
    assert (tree / "docs/p.md").stat().st_mtime_ns > time.time_ns()  # still ahead


def test_an_edit_keeping_the_future_mtime_and_size_is_seen(tree: Path) -> None:
    path = tree / "docs/p.md"
    ahead = _stamp_ahead(path)
    writes = Writes(tree)
    for _ in range(2):
        assert _search(tree, "widget") == ["docs/p.md"]
    writes.since_last()
    assert _search(tree, "widget") == ["docs/p.md"]
    assert not writes.since_last()  # settled: the bytes were found to be the indexed ones

    size = path.stat().st_size
    with path.open("w", encoding="utf-8") as f:  # in place: the same inode
        f.write(EDITED)
    os.utime(path, ns=(ahead, ahead))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (size, ahead)

    assert _search(tree, "gadget") == ["docs/p.md"]
    assert writes.since_last()  # the edit was synced
    assert _search(tree, "widget") == []
    proc = cli(tree, "search", "gadget", "--json")
    assert "gadget explains" in proc.stdout, proc.stdout
    assert not writes.since_last()


def test_a_doc_stamped_back_from_ahead_is_synced_once(tree: Path) -> None:
    """The clock passing the mtime, or a stamp back: the stat data changed, one sync, then
    the doc is settled by its mtime as any other."""
    path = tree / "docs/p.md"
    _stamp_ahead(path)
    writes = Writes(tree)
    assert _search(tree, "widget") == ["docs/p.md"]
    past = time.time_ns() - AHEAD_NS
    os.utime(path, ns=(past, past))
    writes.since_last()
    assert _search(tree, "widget") == ["docs/p.md"]
    assert writes.since_last()
    assert _search(tree, "widget") == ["docs/p.md"]
    assert not writes.since_last()


def test_a_doc_unpacked_ahead_before_ingest_is_never_written_by_queries(tmp_path: Path) -> None:
    """An archive unpacked with stamps ahead of the clock, then indexed: no query writes."""
    root = init_repo(tmp_path / "tree", {"docs/p.md": PAGE, ".gitignore": ".kenso/\n"})
    _stamp_ahead(root / "docs/p.md")
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    writes = Writes(root)
    wrote = []
    for _ in range(3):
        assert _search(root, "widget") == ["docs/p.md"]
        wrote.append(writes.since_last())
    assert wrote == [False, False, False]
