"""The index writer's bulk path: full-text entries written from Python values must be
exactly what the `chunks_search` view would give the FTS index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.errors import NoIndexError
from kenso_git.store import schema
from kenso_git.store.chunks import BULK_AUTOMERGE
from kenso_git.store.chunks import DEFAULT_AUTOMERGE
from kenso_git.store.chunks import FTS_HASH_BYTES
from kenso_git.store.chunks import BulkInsert
from kenso_git.store.chunks import ChunkRow
from kenso_git.store.chunks import write_chunks
from kenso_git.store.connection import open_writer
from kenso_git.store.connection import transaction
from kenso_git.text.terms import expanded_line
from tests.helpers import check_index
from tests.helpers import connect_raw

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_MAYBE = st.none() | _TEXT


def _writer(tmp_path: Path) -> sqlite3.Connection:
    return open_writer(tmp_path / "index.db", fresh=True)


def _consistent(conn: sqlite3.Connection) -> None:
    check_index(conn)


@settings(max_examples=150, deadline=None)
@given(_MAYBE, _MAYBE, _MAYBE, _MAYBE, _MAYBE, _TEXT, _MAYBE)
def test_fts_values_are_what_the_triggers_index_and_the_view_shows(
    title, doc_title, section_path, tags, category, content, extra
):
    conn = connect_raw(":memory:")
    for ddl in schema.DDL:
        conn.execute(ddl)
    conn.execute(
        "INSERT INTO chunks(file_path, title, doc_title, section_path, tags, category, "
        "content, search_extra) VALUES ('a.md', ?, ?, ?, ?, ?, ?, ?)",
        (title, doc_title, section_path, tags, category, content, extra),
    )
    indexed = conn.execute(schema.FTS_SOURCE).fetchone()[1:]
    own = extra if extra is not None else expanded_line(content)  # made, not stored
    assert schema.fts_values(title, doc_title, section_path, tags, category, content, own) == tuple(
        indexed
    )
    viewed = conn.execute(
        "SELECT title, section_path, tags, category, searchable_content FROM chunks_search"
    ).fetchone()
    assert schema.fts_values(
        title, doc_title, section_path, tags, category, content, extra
    ) == tuple(viewed)
    check_index(conn)


def _chunks(n: int, word: str) -> list[ChunkRow]:
    return [
        ChunkRow(f"T{i}", f"Doc > S{i}", f"{word} body {i}", f"Source: x{i}", None)
        for i in range(n)
    ]


def _write(
    conn: sqlite3.Connection,
    path: str,
    chunks: list[ChunkRow],
    bulk: BulkInsert | None,
    *,
    tags: tuple[str, ...] = (),
    replace: bool = False,
) -> None:
    write_chunks(conn, path, chunks, "", "all", tags, "h", replace=replace, bulk=bulk)


def _matches(conn: sqlite3.Connection, word: str) -> int:
    sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
    return int(conn.execute(sql, (word,)).fetchone()[0])


def test_bulk_insert_indexes_new_rows_from_their_values(tmp_path):
    conn = _writer(tmp_path)
    with transaction(conn):
        bulk = BulkInsert(conn)
        _write(conn, "a.md", _chunks(3, "alpha"), bulk, tags=("t",))
        bulk.flush()
        _write(conn, "b.md", _chunks(2, "beta"), bulk)
        bulk.end()
    _consistent(conn)
    hits = conn.execute(
        "SELECT c.file_path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH 'beta' ORDER BY 1"
    ).fetchall()
    assert [h[0] for h in hits] == ["b.md", "b.md"]
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert schema.INSERT_TRIGGER in triggers
    config = dict(conn.execute("SELECT k, v FROM chunks_fts_config").fetchall())
    assert config["hashsize"] == FTS_HASH_BYTES  # kept in the index for later bulk writes
    assert config["automerge"] == DEFAULT_AUTOMERGE  # the bulk policy ends with the bulk


def test_bulk_insert_merges_more_segments_at_a_time_only_while_it_lasts(tmp_path):
    conn = _writer(tmp_path)

    def automerge() -> int:
        return int(
            conn.execute("SELECT v FROM chunks_fts_config WHERE k = 'automerge'").fetchone()[0]
        )

    with transaction(conn):
        bulk = BulkInsert(conn)
        assert automerge() == BULK_AUTOMERGE
        _write(conn, "a.md", _chunks(3, "alpha"), bulk)
        bulk.end()
        assert automerge() == DEFAULT_AUTOMERGE
    check_index(conn)


def test_bulk_insert_falls_back_to_the_view_when_ids_are_not_as_expected(tmp_path):
    conn = _writer(tmp_path)
    with transaction(conn):
        bulk = BulkInsert(conn)
        _write(conn, "a.md", _chunks(2, "alpha"), bulk)
        # a row the bulk writer was not told about shifts the ids of the next ones
        conn.execute("INSERT INTO chunks(file_path, content) VALUES ('odd.md', 'gamma text')")
        _write(conn, "b.md", _chunks(2, "beta"), bulk)
        bulk.end()
    _consistent(conn)
    assert _matches(conn, "gamma") == 1
    with transaction(conn):  # the next bulk starts after every id in use
        bulk = BulkInsert(conn)
        _write(conn, "c.md", _chunks(1, "delta"), bulk)
        bulk.end()
    _consistent(conn)
    assert _matches(conn, "delta") == 1


def test_bulk_insert_indexes_rows_added_to_a_rewritten_file(tmp_path):
    conn = _writer(tmp_path)
    with transaction(conn):
        _write(conn, "a.md", _chunks(2, "alpha"), None)
    with transaction(conn):
        bulk = BulkInsert(conn)
        _write(conn, "a.md", _chunks(4, "omega"), bulk, replace=True)
        bulk.end()
    _consistent(conn)
    assert _matches(conn, "omega") == 4
    assert _matches(conn, "alpha") == 0


def test_a_writer_never_creates_an_index_that_is_gone(tmp_path: Path) -> None:
    """`rm -rf .kenso` between a sync's look and its open: the sync must not create an empty
    index and write only its few changed files into it."""
    gone = tmp_path / ".kenso" / "docs.db"
    with pytest.raises(NoIndexError):
        open_writer(gone)
    assert not gone.exists()
