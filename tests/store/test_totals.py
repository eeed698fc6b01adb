"""The running totals `state()` reads and the typo vocabulary table (#32): equal to a recount
after any sequence of writes, kept by every writer (the `chunks` view too), backfilled for an
index made before them, and read without touching a single chunk's text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.kb import KnowledgeBase
from kenso_git.store import totals
from kenso_git.store import vocab
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import vocabulary_pairs
from tests.helpers import write

NAMES = ("a.md", "b.md", "guide/c.md", "guide/d.md", "ref/e.md", "ref/deep/f.md")
CATEGORIES = (None, "howto", "reference", "")


def _text(name: str, sections: int, category: str | None, link: str | None, word: str) -> str:
    body = "".join(
        f"## Part {i} of {word}\n\n{word} paragraph {i} with enough words to be indexed "
        f"{'and more ' * (i * 7)}here. [next](../{link})\n\n"
        for i in range(sections)
    )
    front: dict[str, object] = {}
    if category is not None:
        front["category"] = category or '""'
    if link is not None:
        front["relates_to"] = [link]
    return doc(f"Title {word}", f"Intro about {word} and ünïcödé text.\n\n{body}", **front)


def _recount(db: Path) -> totals.Totals:
    conn = connect_raw(db)
    try:
        return totals.count(conn)
    finally:
        conn.close()


def _kept(db: Path) -> totals.Totals:
    conn = connect_raw(db)
    try:
        return totals.read(conn)
    finally:
        conn.close()


def _assert_vocabulary_exact(db: Path) -> None:
    """The typo vocabulary table holds each document's words, no more (#32)."""
    conn = connect_raw(db)
    try:
        assert vocab.is_current(conn)
        pairs, stored = vocabulary_pairs(conn)
        assert stored == pairs
        words = {(w, len(w)) for w, _ in pairs}
        assert set(conn.execute("SELECT word, len FROM vocab_words")) == words
    finally:
        conn.close()


def _assert_state_exact(kb: KnowledgeBase) -> None:
    _assert_vocabulary_exact(kb.db_path)
    counted = _recount(kb.db_path)
    assert _kept(kb.db_path) == counted
    state = kb.state(check_stale=False)
    got = (state.documents, state.chunks, state.links, state.content_bytes, state.categories)
    assert got == (
        counted.documents,
        counted.chunks,
        counted.links,
        counted.content_bytes,
        counted.categories,
    )


OPS = st.one_of(
    st.tuples(
        st.just("write"),
        st.sampled_from(NAMES),
        st.integers(0, 4),
        st.sampled_from(CATEGORIES),
        st.one_of(st.none(), st.sampled_from(NAMES)),
        st.sampled_from(("alpha", "beta", "gamma")),
    ),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
    st.tuples(st.just("sync")),
    st.tuples(st.just("ingest"), st.sampled_from(("", "guide", "ref"))),
    st.tuples(st.just("commit")),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=12))
def test_totals_equal_a_recount_after_any_writes(tmp_path_factory, ops) -> None:
    _apply_ops(tmp_path_factory, ops)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=12))
def test_totals_equal_a_recount_after_any_bulk_writes(tmp_path_factory, ops) -> None:
    """Every run on the bulk path, whose new rows are counted at its end (not one by one
    by the insert trigger): new, edited, relabelled, recategorised and deleted files."""
    from kenso_git.index import build

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "BULK_THRESHOLD", 1)
        _apply_ops(tmp_path_factory, ops)


def _apply_ops(tmp_path_factory, ops) -> None:
    root = init_repo(tmp_path_factory.mktemp("totals"), {"a.md": _text("a.md", 2, None, None, "x")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    _assert_state_exact(kb)
    for op in ops:
        if op[0] == "write":
            _, name, sections, category, link, word = op
            write(root, {name: _text(name, sections, category, link, word)})
        elif op[0] == "delete":
            (root / op[1]).unlink(missing_ok=True)
        elif op[0] == "sync":
            kb.sync()
        elif op[0] == "ingest":
            kb.ingest([root / op[1]] if op[1] and (root / op[1]).is_dir() else None)
        else:
            git(root, "add", "-A")
            git(root, "commit", "-q", "--allow-empty", "-m", "step")
            kb.sync(paths=list(NAMES))
        _assert_state_exact(kb)
    kb.close()


def test_writes_through_the_chunks_view_keep_the_totals(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "r", {"a.md": _text("a.md", 3, "howto", "b.md", "one")})
    write(root, {"b.md": _text("b.md", 1, None, None, "two")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    conn = connect_raw(kb.db_path)
    with conn:  # what a tool written for kenso's single chunks table does
        conn.execute(
            "INSERT INTO chunks(file_path, chunk_index, title, content, category) "
            "VALUES ('new.md', 0, 'T', 'some text ü', 'other')"
        )
        conn.execute("UPDATE chunks SET category = 'moved', content = 'x' WHERE file_path = 'a.md'")
        conn.execute("DELETE FROM chunks WHERE file_path = 'b.md'")
        conn.execute("DELETE FROM links")
    conn.close()
    assert _kept(kb.db_path) == _recount(kb.db_path)


def test_an_index_made_before_the_totals_is_counted_then_backfilled(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "r", {"a.md": _text("a.md", 3, "howto", "b.md", "one")})
    write(root, {"b.md": _text("b.md", 2, None, "a.md", "two")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    expected = _recount(kb.db_path)
    conn = sqlite3.connect(kb.db_path)
    with conn:  # as an index written by an older kenso-git holds it
        for trigger in ("totals_ci", "totals_cd", "totals_cu", "totals_li", "totals_ld"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute(f"DROP TABLE {totals.TABLE}")
        conn.execute(f"DROP TABLE {totals.CATEGORY_TABLE}")
    conn.close()
    kb = KnowledgeBase.open(root)
    assert kb.state(check_stale=False).documents == expected.documents  # counted: no table
    write(root, {"c.md": _text("c.md", 1, "howto", None, "three")})
    kb.sync()
    _assert_state_exact(kb)
    assert _kept(kb.db_path).documents == expected.documents + 1
    kb.close()


def test_a_missing_trigger_makes_the_next_write_count_again(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "r", {"a.md": _text("a.md", 3, "howto", None, "one")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    conn = sqlite3.connect(kb.db_path)
    with conn:  # a migration that rebuilt chunk_rows would drop its triggers
        conn.execute("DROP TRIGGER totals_ci")
        conn.execute("UPDATE index_totals SET chunks = 999")
    conn.close()
    write(root, {"b.md": _text("b.md", 2, None, None, "two")})
    kb.sync()
    _assert_state_exact(kb)
    kb.close()


def test_state_reads_no_chunk_text(tmp_path: Path) -> None:
    """At 48,600 docs summing every chunk's length took 0.6-1.2 s per `state()` (#32)."""
    root = init_repo(tmp_path / "r", {"a.md": _text("a.md", 3, "howto", "b.md", "one")})
    write(root, {"b.md": _text("b.md", 2, None, None, "two")})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    read: set[tuple[str, str]] = set()

    def watch(action: int, table: str | None, column: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table in ("chunk_rows", "link_rows"):
            read.add((table, column or ""))
        return sqlite3.SQLITE_OK

    kb._reader().set_authorizer(watch)
    state = kb.state(check_stale=False)
    assert state.documents == 2 and state.chunks > 2 and state.links >= 1
    assert read == set(), f"state() read {sorted(read)}"
    kb.close()


def _synced_by_a_hook(tmp_path: Path) -> Path:
    """A repository whose index a hook's targeted sync left with `worktree_differs` open
    (b.md edited since HEAD)."""
    root = init_repo(tmp_path / "r", {"a.md": _text("a.md", 3, "howto", "b.md", "one")})
    write(root, {"b.md": _text("b.md", 2, None, None, "two")})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "b")
    KnowledgeBase.open(root).ingest()
    write(root, {"b.md": _text("b.md", 3, None, None, "three")})
    KnowledgeBase.open(root).sync(paths=["b.md"])  # what post-commit/checkout hooks run
    return root


def test_health_check_after_a_hooks_sync_reads_no_whole_table(tmp_path: Path) -> None:
    """A hook's targeted sync leaves `worktree_differs` open; `state()` then loaded every
    files row and listed HEAD's tree on each call (#32): the check's git status answers it."""
    from kenso_git.serve.service import Service

    root = _synced_by_a_hook(tmp_path)
    service = Service(root)
    kb = service.kb()
    kb.refresh()
    statements: list[str] = []
    kb._reader().set_trace_callback(statements.append)
    health, _ = service.health()
    assert health["ok"] and health["worktree_differs"] is True and health["documents"] == 2
    whole = [s for s in statements if "FROM files" in s and "WHERE" not in s]
    assert whole == [], whole
    kb.close()


def test_state_after_a_hooks_sync_reads_two_columns_of_files(tmp_path: Path) -> None:
    """With no check run yet, `state()` works out whether the docs differ from HEAD: it read
    every whole files row (raw links included) and a dictionary of HEAD's files (a server's
    first `health_check` at 100,000 docs, #32); now each row's path and blob id, HEAD's
    listing streamed against them."""
    root = _synced_by_a_hook(tmp_path)
    kb = KnowledgeBase.open(root)
    statements: list[str] = []
    kb._reader().set_trace_callback(statements.append)
    assert kb.state(check_stale=False).worktree_differs is True
    whole = [" ".join(s.split()) for s in statements if "FROM files" in s and "WHERE" not in s]
    assert whole == ["SELECT path, blob_id FROM files"], whole
    kb.close()


def test_a_bulk_insert_whose_ids_shifted_counts_its_rows_in_sql(tmp_path: Path) -> None:
    """The writer counts a bulk insert's rows as it inserts them; a row it was not told
    about (the FTS batch finds the ids shifted) makes the end count them all in SQL."""
    from kenso_git.store.chunks import BulkInsert
    from kenso_git.store.chunks import ChunkRow
    from kenso_git.store.chunks import write_chunks
    from kenso_git.store.connection import open_writer
    from kenso_git.store.connection import transaction

    def rows(n: int, word: str) -> list[ChunkRow]:
        return [ChunkRow(f"T{i}", "S", f"{word} ünï {i}", None, None) for i in range(n)]

    conn = open_writer(tmp_path / "index.db", fresh=True)
    for shifted in (False, True):
        with transaction(conn):
            totals.ensure(conn)
            bulk = BulkInsert(conn)
            write_chunks(
                conn,
                f"a{shifted}.md",
                rows(2, "alpha"),
                "",
                "all",
                (),
                "h",
                replace=False,
                bulk=bulk,
            )
            if shifted:
                conn.execute(
                    "INSERT INTO chunks(file_path, content, category) "
                    "VALUES ('odd.md', 'gamma', 'guide')"
                )
            write_chunks(
                conn,
                f"b{shifted}.md",
                rows(3, "beta"),
                "guide",
                "all",
                (),
                "h",
                replace=False,
                bulk=bulk,
            )
            bulk.flush()
            assert (bulk.added is None) == shifted
            # a document that has rows already (of this bulk, or of the one before) gets more
            write_chunks(
                conn, "aFalse.md", rows(3, "delta"), "", "all", (), "h", replace=True, bulk=bulk
            )
            bulk.end()
            assert totals.read(conn) == totals.count(conn)
    conn.close()
