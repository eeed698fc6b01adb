"""Chunk text is stored packed (store/textcodec.py, schema 4, issue #16) and read back
exactly: through the views, the FTS index, the CJK side index and every tool answer."""

from __future__ import annotations

import random
import shutil
import string
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from kenso_git.store import textcodec
from kenso_git.store import trigram
from kenso_git.store.connection import open_reader
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo

DOCS = Path(__file__).resolve().parents[2] / "docs"
DATA = Path(__file__).with_name("data")


def test_long_text_is_packed_and_short_or_incompressible_text_is_kept() -> None:
    long = "The deployment pipeline caches every layer it builds. " * 8
    packed = textcodec.pack(long)
    assert isinstance(packed, bytes) and len(packed) < len(long.encode()) / 3
    assert textcodec.unpack(packed) == long
    assert textcodec.pack("a short line") == "a short line"
    noise = "".join(random.Random(7).choices(string.ascii_letters + string.punctuation, k=150))
    assert textcodec.pack(noise) == noise  # deflate would make it longer: kept as text
    accents = "Überprüfung der Größe — naïve café 全文检索 " * 10
    assert textcodec.unpack(textcodec.pack(accents)) == accents
    assert textcodec.pack_optional(None) is None


def test_the_text_size_is_summed_without_inflating_a_chunk(tmp_path: Path) -> None:
    kb = KnowledgeBase.open(_docs_repo(tmp_path / "repo"))
    kb.ingest()
    conn = connect_raw(kb.db_path)
    stored = [r[0] for r in conn.execute("SELECT content FROM chunk_rows")]
    inflated = []
    conn.create_function("kenso_text", 1, lambda v: inflated.append(v) or textcodec.unpack(v))
    plain = sum(len(textcodec.unpack(v).encode()) for v in stored)
    assert textcodec.total_bytes(conn) == plain and not inflated
    conn.close()
    assert kb.state(check_stale=False).content_bytes == plain
    assert any(isinstance(v, bytes) for v in stored)
    kb.close()


def test_the_sql_function_inflates_blobs_and_passes_everything_else() -> None:
    conn = connect_raw(":memory:")
    text = "Expanded terms: snake case, ci cd, node js " * 5
    row = conn.execute(
        "SELECT kenso_text(?), kenso_text(?), kenso_text(NULL), kenso_text(3)",
        (textcodec.pack(text), "plain"),
    ).fetchone()
    assert row == (text, "plain", None, 3)


def _bytes(wrap: str) -> str:
    """SQL: the bytes of every row's content and search_extra, each read as `wrap`."""
    content, extra = wrap.format("content"), wrap.format("search_extra")
    return f"sum(length(CAST({content} AS BLOB)) + coalesce(length(CAST({extra} AS BLOB)), 0))"


def _docs_repo(root: Path) -> Path:
    """A work tree of this project's own docs: real prose, tables and code."""
    repo = init_repo(root, {})
    shutil.copytree(DOCS, repo / "docs")
    return repo


def test_stored_chunk_text_is_less_than_half_the_plain_text(tmp_path: Path) -> None:
    kb = KnowledgeBase.open(_docs_repo(tmp_path / "repo"))
    kb.ingest()
    kb.close()
    conn = connect_raw(tmp_path / "repo" / ".kenso" / "docs.db")
    stored, plain, packed = conn.execute(
        f"SELECT {_bytes('{}')}, {_bytes('kenso_text({})')}, "
        "sum(typeof(content) = 'blob') FROM chunk_rows"
    ).fetchone()
    conn.close()
    # today's docs: ~0.42; the schema-3 rows held the text itself (1.0)
    assert stored / plain < 0.55, (stored, plain)
    assert packed > 0


def test_answers_read_the_plain_text_beside_rows_tools_wrote_as_text(tmp_path: Path) -> None:
    body = "## Usage\n\n" + "The quarzite exporter streams each record to the bucket. " * 10
    root = init_repo(tmp_path / "repo", {"docs/export.md": doc("Exporter", body)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    conn = connect_raw(db, isolation_level=None)
    (kind,) = conn.execute(
        "SELECT typeof(content) FROM chunk_rows WHERE content_hash IS NOT NULL"
    ).fetchone()
    assert kind == "blob"
    # a tool written for kenso's single chunks table inserts and edits through the view
    conn.execute(
        "INSERT INTO chunks(file_path, title, content, category) VALUES (?, ?, ?, ?)",
        ("docs/tool.md", "Tool Row", "A row a tool wrote about the quarzite importer.", "ops"),
    )
    conn.execute("UPDATE chunks SET category = 'guide' WHERE file_path = 'docs/export.md'")
    kinds = dict(conn.execute("SELECT file_path, typeof(content) FROM chunk_rows"))
    assert kinds == {"docs/export.md": "blob", "docs/tool.md": "text"}
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    conn.close()
    hits = kb.search("quarzite").hits
    assert {h.file_path for h in hits} == {"docs/export.md", "docs/tool.md"}
    got = kb.get_doc("docs/export.md")
    assert "streams each record to the bucket" in str(got["content"])
    kb.close()


def test_long_cjk_content_reaches_the_side_index_as_text(tmp_path: Path) -> None:
    para = "本文介绍如何配置全文检索引擎的分词器和索引参数，以及数据库文件的位置。"
    root = init_repo(tmp_path / "repo", {"docs/zh.md": doc("检索", "## 配置\n\n" + para * 6)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    conn = connect_raw(root / ".kenso" / "docs.db")
    kinds = {r[0] for r in conn.execute("SELECT typeof(content) FROM chunk_rows")}
    side = conn.execute(f"SELECT typeof(content), content FROM {trigram.TABLE}").fetchall()
    conn.close()
    assert kinds == {"blob"}
    assert [k for k, _ in side] == ["text"] and para in side[0][1]
    assert [h.file_path for h in kb.search("分词器").hits] == ["docs/zh.md"]
    kb.close()


def test_a_reader_of_schema_4_answers_from_a_schema_3_file(tmp_path: Path) -> None:
    """The reader upgrades the file first (its graph queries name schema 4's tables); the
    packed text reads back as the text it was."""
    db = tmp_path / "docs.db"
    shutil.copy(DATA / "schema3.db", db)
    conn = open_reader(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 4
    assert conn.execute(
        "SELECT count(*) FROM chunk_rows WHERE typeof(content) = 'blob'"
    ).fetchone()[0]
    rows = conn.execute(
        "SELECT c.file_path, c.content FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH 'deployment'"
    ).fetchall()
    conn.close()
    assert {r[0] for r in rows} == {"docs/long.md"}
    assert all("configures the deployment pipeline" in r[1] for r in rows)
