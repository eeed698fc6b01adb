"""The writer's fast paths give the index what the row-by-row path gives it: a large file
indexed alone (batched FTS insert), and a file's links written in one statement."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenso_git.store import schema
from kenso_git.store.chunks import LOCAL_BULK_FROM
from kenso_git.store.chunks import ChunkRow
from kenso_git.store.chunks import write_chunks
from kenso_git.store.connection import open_writer
from kenso_git.store.connection import transaction
from kenso_git.store.links import LinkRow
from kenso_git.store.links import replace_links
from tests.helpers import check_index


def _entries(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    check_index(conn)
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, chunks_fts, 'instance')"
    )
    return conn.execute(
        "SELECT term, c.file_path, c.chunk_index, col, offset FROM temp.v "
        "JOIN chunks c ON c.id = doc ORDER BY 1, 2, 3, 4, 5"
    ).fetchall()


def _rows(n: int) -> list[ChunkRow]:
    return [
        ChunkRow(f"Big > S{i}", f"Big > S{i}", f"word{i} body", "Expanded terms: a b", None)
        for i in range(n)
    ]


_MANY = tuple(f"tag{i:04d}" for i in range(600))  # labels past schema.LABELS_CAP
_LABELS = {
    "few": (("t1",), "Keywords: t1\n\nSource: big.md"),
    "many": (_MANY, "Keywords: " + ", ".join(_MANY) + "\n\nSource: big.md"),
}


@pytest.mark.parametrize("kind", sorted(_LABELS))
def test_a_large_file_alone_is_indexed_as_the_trigger_would(tmp_path: Path, kind: str) -> None:
    tags, labels = _LABELS[kind]
    n = LOCAL_BULK_FROM + 5
    fast = open_writer(tmp_path / "fast.db", fresh=True)
    slow = open_writer(tmp_path / "slow.db", fresh=True)
    with transaction(fast):
        write_chunks(
            fast,
            "big.md",
            _rows(n),
            "c",
            "all",
            tags,
            "h",
            replace=False,
            labels=labels,
        )
    with transaction(slow):  # the same rows, a few at a time: each write takes the trigger
        for start in range(0, n, 7):
            path = "big.md"
            rows = _rows(n)[: start + 7]
            write_chunks(
                slow,
                path,
                rows,
                "c",
                "all",
                tags,
                "h",
                replace=start > 0,
                labels=labels,
            )
    assert _entries(fast) == _entries(slow)
    triggers = {r[0] for r in fast.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert schema.INSERT_TRIGGER in triggers
    with transaction(fast):  # later small writes are indexed by the restored trigger
        write_chunks(
            fast,
            "small.md",
            _rows(1),
            "c",
            "all",
            (),
            "h",
            replace=False,
            labels="Source: small.md",
        )
    hits = fast.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'small'")
    assert hits.fetchone()[0] == 1
    _entries(fast)
    for conn in (fast, slow):  # new labels: every entry is deleted under the values it has
        with transaction(conn):
            write_chunks(conn, "big.md", _rows(3), "c", "all", (), "h", replace=True, labels="L")
        _entries(conn)  # the integrity check: no entry was left under stale values
    big = [tuple(e) for e in _entries(fast) if e[1] == "big.md"]
    assert big == [tuple(e) for e in _entries(slow)]
    if kind == "many":  # the first chunk's entry alone holds the labels past the cap
        assert schema.label_head(labels) is not None


def test_links_are_written_once_each_keeping_the_first_raw_form(tmp_path: Path) -> None:
    conn = open_writer(tmp_path / "i.db", fresh=True)
    links = [
        LinkRow("z.md", "related", "./z.md"),
        LinkRow("a.md", "depends", "a.md"),
        LinkRow("z.md", "related", "z.md"),
        LinkRow("a.md", "related", "ä.md"),
    ]
    with transaction(conn):
        replace_links(conn, "src.md", links)
        replace_links(conn, "empty.md", [])
    rows = conn.execute(
        "SELECT source_path, target_path, relation_type, raw_target FROM links ORDER BY 2, 3"
    ).fetchall()
    assert [tuple(r) for r in rows] == [
        ("src.md", "a.md", "depends", "a.md"),
        ("src.md", "a.md", "related", "ä.md"),
        ("src.md", "z.md", "related", "./z.md"),
    ]
    with transaction(conn):
        replace_links(conn, "src.md", links[:1])
    assert conn.execute("SELECT count(*) FROM links").fetchone()[0] == 1
