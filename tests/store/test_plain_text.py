"""Chunk text is stored plain (schema 5, issue #26): any SQLite client reads kenso's tables
(`chunks`, `links`, `chunks_fts` and its highlight/snippet) with no function of ours, and
a chunk's expanded terms are indexed without being stored."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from kenso_git.store import trigram
from kenso_git.store.connection import open_reader
from kenso_git.text.terms import expanded_line
from tests.helpers import check_index
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

DOCS = Path(__file__).resolve().parents[2] / "docs"
DATA = Path(__file__).with_name("data")
_ENGINE = "## Matching\n\n" + "The orderMatchingEngine keeps snake_case keys for node.js. " * 12
# What a user types in a sqlite3 shell, Datasette or sqlite-utils, kenso's documented tables
# first (spec §7.1).
_USER_QUERIES = (
    "SELECT file_path, chunk_index, title, section_path, content, search_extra, category, "
    "audience, tags, content_hash, doc_title, created_at, updated_at FROM chunks",
    "SELECT * FROM links",
    "SELECT rowid, title, searchable_content FROM chunks_fts WHERE chunks_fts MATCH 'engine'",
    "SELECT highlight(chunks_fts, 4, '[', ']'), snippet(chunks_fts, 4, '[', ']', '...', 8), "
    "bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH 'engine'",
    "SELECT * FROM chunks_search",
    "SELECT * FROM documents",
    "SELECT * FROM files",
)


def _indexed(tmp_path: Path) -> tuple[KnowledgeBase, Path]:
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/engine.md": doc(
                "Engine", _ENGINE, tags=["matching"], relates_to=["docs/other.md"]
            ),
            "docs/other.md": doc("Other Page", "A page about the other things we keep.\n"),
        },
    )
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb, root / ".kenso" / "docs.db"


def test_a_plain_sqlite3_connection_reads_every_table_and_view_of_the_index(
    tmp_path: Path,
) -> None:
    kb, db = _indexed(tmp_path)
    kb.close()
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)  # no function of ours
    try:
        answers = [conn.execute(sql).fetchall() for sql in _USER_QUERIES]
    finally:
        conn.close()
    assert all(answers), [sql for sql, rows in zip(_USER_QUERIES, answers, strict=True) if not rows]
    contents = "".join(row[4] for row in answers[0])
    assert "The orderMatchingEngine keeps snake_case keys" in contents
    assert any("[engine]" in row[0].lower() for row in answers[3])


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="no sqlite3 shell on PATH")
def test_the_sqlite3_shell_selects_the_chunk_content(tmp_path: Path) -> None:
    kb, db = _indexed(tmp_path)
    kb.close()
    shell = subprocess.run(
        ["sqlite3", "-readonly", str(db), "SELECT content FROM chunks ORDER BY id LIMIT 1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shell.returncode == 0, shell.stderr
    assert "orderMatchingEngine" in shell.stdout or "other things" in shell.stdout


def test_no_view_of_the_schema_calls_a_function_of_ours(tmp_path: Path) -> None:
    kb, db = _indexed(tmp_path)
    kb.close()
    conn = sqlite3.connect(db)
    views = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'"))
    conn.close()
    assert set(views) >= {"chunks", "chunks_search", "links"}
    assert not [name for name, sql in views.items() if "kenso_" in sql]


def test_expanded_terms_are_indexed_but_not_stored(tmp_path: Path) -> None:
    kb, db = _indexed(tmp_path)
    hits = kb.search("matching engine").hits
    assert hits and hits[0].file_path == "docs/engine.md"
    assert "<mark>orderMatchingEngine</mark>" in hits[0].highlight  # built from the content
    conn = connect_raw(db)
    rows = conn.execute(
        "SELECT typeof(content), search_extra, content FROM chunk_rows "
        "WHERE file_path = 'docs/engine.md'"
    ).fetchall()
    check_index(conn)
    vocab = "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, 'row')"
    conn.execute(vocab)
    terms = {r[0] for r in conn.execute("SELECT term FROM temp.v")}
    conn.close()
    kb.close()
    assert rows and all(kind == "text" and own is None for kind, own, _ in rows)
    assert {"order", "match", "engin", "snake", "case", "node", "js"} <= terms
    assert all(expanded_line(text) for _, _, text in rows)  # each has a line, made again


def test_an_edited_doc_leaves_no_expanded_term_of_its_old_text(tmp_path: Path) -> None:
    """The delete trigger computes the old row's line again: the index keeps no posting of
    a term the old text expanded to (FTS5 would keep it silently if the line differed)."""
    kb, db = _indexed(tmp_path)
    root = db.parent.parent
    write(
        root,
        {
            "docs/engine.md": doc(
                "Engine", "## Matching\n\nNow the queueDispatcher takes every order.\n" * 2
            )
        },
    )
    kb.sync()
    conn = connect_raw(db)
    check_index(conn)
    conn.close()
    assert not kb.search("snake").hits
    assert [h.file_path for h in kb.search("dispatcher").hits] == ["docs/engine.md"]
    kb.close()


def test_rows_a_tool_writes_through_the_chunks_view_are_indexed_and_read_back(
    tmp_path: Path,
) -> None:
    kb, db = _indexed(tmp_path)
    conn = connect_raw(db, isolation_level=None)
    # a tool written for kenso's single chunks table inserts and edits through the view
    conn.execute(
        "INSERT INTO chunks(file_path, title, content, category) VALUES (?, ?, ?, ?)",
        ("docs/tool.md", "Tool Row", "A row a tool wrote about the quarzite importerTool.", "ops"),
    )
    conn.execute("UPDATE chunks SET category = 'guide' WHERE file_path = 'docs/engine.md'")
    check_index(conn)
    conn.close()
    assert {h.file_path for h in kb.search("quarzite").hits} == {"docs/tool.md"}
    assert {h.file_path for h in kb.search("importer").hits} == {"docs/tool.md"}
    assert "keeps snake_case keys" in str(kb.get_doc("docs/engine.md")["content"])
    kb.close()


def test_the_text_size_is_the_utf8_bytes_of_the_chunks(tmp_path: Path) -> None:
    kb, db = _indexed(tmp_path)
    conn = sqlite3.connect(db)
    plain = sum(len(r[0].encode()) for r in conn.execute("SELECT content FROM chunks"))
    conn.close()
    assert kb.state(check_stale=False).content_bytes == plain > 0
    kb.close()


def test_long_cjk_content_reaches_the_side_index_with_no_function(tmp_path: Path) -> None:
    para = "本文介绍如何配置全文检索引擎的分词器和索引参数，以及数据库文件的位置。"
    root = init_repo(tmp_path / "repo", {"docs/zh.md": doc("检索", "## 配置\n\n" + para * 6)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    conn = sqlite3.connect(root / ".kenso" / "docs.db")
    side = conn.execute(f"SELECT content FROM {trigram.TABLE}").fetchall()
    triggers = [r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE type='trigger'")]
    conn.close()
    assert len(side) == 1 and para in side[0][0]
    assert not [sql for sql in triggers if "cjk" in sql and "kenso_" in sql]
    assert [h.file_path for h in kb.search("分词器").hits] == ["docs/zh.md"]
    kb.close()


def test_a_new_index_uses_16_kb_pages(tmp_path: Path) -> None:
    """Rows of plain text fill 4 KB pages badly (19% unused on the docs corpus)."""
    kb, db = _indexed(tmp_path)
    kb.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 16384
    conn.close()


def test_a_reader_answers_from_a_schema_4_file_after_upgrading_it(tmp_path: Path) -> None:
    """The reader upgrades the file first; the packed text reads back as the text it was,
    from any client."""
    db = tmp_path / "docs.db"
    shutil.copy(DATA / "schema4.db", db)
    conn = open_reader(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 5
    conn.close()
    plain = sqlite3.connect(db)
    kinds = {r[0] for r in plain.execute("SELECT typeof(content) FROM chunk_rows")}
    rows = plain.execute(
        "SELECT c.file_path, c.content FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH 'deployment'"
    ).fetchall()
    plain.close()
    assert kinds == {"text"}
    assert {r[0] for r in rows} == {"docs/long.md"}
    assert all("configures the deployment pipeline" in r[1] for r in rows)
