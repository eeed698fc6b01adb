"""Frontmatter labels are stored once per document, not once per chunk (issue #14,
finding 3), and indexes of schema 1 (every chunk row carrying them) and schema 2 (every
chunk's FTS entry indexing them whole) are migrated.

`data/schema1.db` is the index kenso-git 627cdd9 wrote for `corpus()`, `data/schema2.db`
the one 8676e98 wrote for `corpus2()`, `data/schema3.db` the one 603e974 wrote for
`corpus3()`, `data/schema4.db` the one ec6b1c4 wrote for `corpus4()`; rebuild one with

    python tests/store/test_labels.py VERSION /path/to/a/checkout/of/that/commit
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from tests.helpers import check_index
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.store.planted import plant_old_index

DATA = Path(__file__).with_name("data")


def _sections(n: int, word: str = "words") -> str:
    return "".join(
        f"## Part {i}\n\nThe {word} of part {i}, snake_case and CI/CD.\n\n" for i in range(n)
    )


def corpus() -> dict[str, str]:
    """Documents with every kind of label, one section or many, with and without the
    `Expanded terms:` line."""
    return {
        "docs/tagged.md": doc(
            "Tagged Guide",
            _sections(12),
            tags=["alpha", "beta-gamma", "node.js"],
            aliases=["The Tag Guide", "Tagging"],
            description="How tags reach every chunk of a document.",
        ),
        "docs/answers.md": doc(
            "Answers",
            "A single part with plain words only, long enough to be indexed here.",
            answers=["how do labels work", "where are tags kept"],
            category="faq",
        ),
        "docs/plain.md": "# Plain\n\n" + _sections(3, "plain words"),
        "notes/desc.md": doc(
            "Described", _sections(2), description="Expanded terms: looks like a line"
        ),
    }


def corpus2() -> dict[str, str]:
    """`corpus()` and a document whose labels pass the per-chunk cap (schema.LABELS_CAP)."""
    many = [f"lbl{i:04d}x" for i in range(400)]
    return {
        **corpus(),
        "docs/many.md": doc("Many Labels", _sections(6), tags=many, aliases=many[:250]),
    }


def _fresh(root: Path) -> KnowledgeBase:
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def _dump(db: Path) -> dict[str, object]:
    """Everything a reader sees, without row ids and timestamps: the `chunks` rows and
    the FTS index entry by entry."""
    conn = connect_raw(db)
    try:
        check_index(conn)
        chunks = conn.execute(
            "SELECT file_path, chunk_index, title, section_path, content, search_extra, "
            "category, audience, tags, doc_title FROM chunks ORDER BY file_path, chunk_index"
        ).fetchall()
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, 'instance')")
        entries = conn.execute(
            "SELECT term, c.file_path, c.chunk_index, col, offset FROM temp.v "
            "JOIN chunks c ON c.id = doc ORDER BY 1, 2, 3, 4, 5"
        ).fetchall()
        return {"chunks": chunks, "entries": entries}
    finally:
        conn.close()


def _stored(db: Path) -> list[tuple[object, ...]]:
    """The chunk rows' text columns as stored, and their types."""
    conn = connect_raw(db)
    try:
        return conn.execute(
            "SELECT file_path, chunk_index, content, typeof(content), search_extra "
            "FROM chunk_rows ORDER BY file_path, chunk_index"
        ).fetchall()
    finally:
        conn.close()


def test_each_label_is_stored_a_few_times_however_many_chunks_share_it(tmp_path: Path) -> None:
    tags = [f"zq{i:03d}qz" for i in range(300)]
    root = init_repo(tmp_path / "repo", {"docs/big.md": doc("Big", _sections(40), tags=tags)})
    kb = _fresh(root)
    assert {h.file_path for h in kb.search("zq123qz").hits} == {"docs/big.md"}
    chunks = kb.read(lambda c: c.execute("SELECT count(*) FROM chunks").fetchone()[0])
    assert chunks >= 40
    kb.close()
    conn = connect_raw(root / ".kenso" / "docs.db")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = (root / ".kenso" / "docs.db").read_bytes()
    # once in the tags JSON, once in the Keywords line, at most once as an FTS term, and
    # as a typo-correction word in doc_words and the vocab tables (#32): schema 1 stored
    # it twice per chunk (80 times here)
    assert data.count(b"zq123qz") <= 7


def _label_postings(tmp_path: Path, sections: int) -> tuple[int, int]:
    """(FTS index bytes spent on 12,000 tags, the chunks holding the last tag) for one document
    of `sections` sections: the index with the tags minus the index without them."""
    tags = [f"tg{i:05d}x" for i in range(12000)]
    size = []
    for name, labels in (("with", tags), ("without", [])):
        root = init_repo(
            tmp_path / f"{name}{sections}",
            {"docs/big.md": doc("Big", _sections(sections), tags=labels)},
        )
        _fresh(root).close()
        conn = connect_raw(root / ".kenso" / "docs.db")
        size.append(conn.execute("SELECT sum(length(block)) FROM chunks_fts_data").fetchone()[0])
        if labels:
            conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, 'row')")
            (last,) = conn.execute("SELECT doc FROM temp.v WHERE term = 'tg11999x'").fetchone()
        conn.close()
    return size[0] - size[1], last


def test_index_bytes_per_label_stay_bounded_as_the_sections_double(tmp_path: Path) -> None:
    # schema 2 indexed every label in every chunk: the bytes doubled with the sections
    # (growth 1.89) and the last tag was in every chunk; now each chunk past the first
    # indexes at most LABELS_CAP characters of them
    small, in_small = _label_postings(tmp_path, 20)
    large, in_large = _label_postings(tmp_path, 40)
    assert large / small < 1.4
    assert in_small == in_large == 1  # the first chunk's entry holds every label


def test_the_capped_head_ends_at_a_label_boundary_and_never_cuts_a_word() -> None:
    cap = schema.LABELS_CAP
    assert schema.label_head("x" * cap) is None  # up to the cap: indexed whole everywhere
    keywords = "Keywords: " + ", ".join(f"word{i}" for i in range(cap // 4))
    head = schema.label_head(keywords)
    assert head is not None and head <= cap
    assert keywords[head : head + 2] == ", " and keywords[head - 1].isalnum()
    prose = "Keywords: x\n\n" + "long words " * cap  # a description with no commas
    assert prose[: schema.label_head(prose)].strip() == "Keywords: x"
    assert schema.label_head("y" * (cap + 1)) == 0  # one giant word: none of it
    assert schema.indexed_labels(keywords, head, 0) == keywords
    assert schema.indexed_labels(keywords, head, 3) == keywords[:head]


def test_new_labels_rewrite_every_chunk_entry_and_a_deleted_file_leaves_none(
    tmp_path: Path,
) -> None:
    root = init_repo(tmp_path / "repo", corpus())
    kb = _fresh(root)
    write(root, {"docs/tagged.md": doc("Tagged Guide", _sections(12), tags=["omega"])})
    kb.ingest()
    assert not kb.search("alpha").hits
    assert {h.file_path for h in kb.search("omega").hits} == {"docs/tagged.md"}
    write(root, {"docs/tagged.md": doc("Tagged Guide", _sections(13), tags=["omega"])})
    kb.ingest()  # same labels, one more section: the rows are compared, not rewritten
    (root / "docs" / "answers.md").unlink()
    kb.ingest()
    kb.close()
    fresh = init_repo(tmp_path / "fresh", {})
    shutil.copytree(root / "docs", fresh / "docs")
    shutil.copytree(root / "notes", fresh / "notes")
    _fresh(fresh).close()
    assert _dump(root / ".kenso" / "docs.db") == _dump(fresh / ".kenso" / "docs.db")
    conn = connect_raw(root / ".kenso" / "docs.db")
    paths = {r[0] for r in conn.execute("SELECT path FROM documents")}
    conn.close()
    assert paths == {"docs/tagged.md", "docs/plain.md", "notes/desc.md"}


def corpus3() -> dict[str, str]:
    """`corpus2()` and a document whose chunks are long enough to be stored compressed."""
    prose = "".join(
        f"## Step {i}\n\n"
        + f"Step {i} configures the deployment pipeline and its cache. " * 12
        + "\n\n"
        for i in range(5)
    )
    return {**corpus2(), "docs/long.md": doc("Long Steps", prose, tags=["pipeline"])}


def corpus4() -> dict[str, str]:
    """`corpus3()` and documents whose chunks have expanded terms (schema 5 stores none),
    one of them long enough to be stored compressed by schema 4, and one in Chinese (the
    CJK side index, whose triggers read schema 4's packed text through a function)."""
    compounds = "".join(
        f"## Part {i}\n\n"
        + f"The orderMatchingEngine{i} reads snake_case_{i} keys from node.js over CI/CD. " * 9
        + "\n\n"
        for i in range(3)
    )
    zh = "本文介绍如何配置全文检索引擎的分词器和索引参数，以及数据库文件的位置。" * 6
    return {
        **corpus3(),
        "docs/engine.md": doc("Engine Notes", compounds, tags=["matching"]),
        "docs/short.md": doc("Short Notes", "The kebab-case name and camelCase id, briefly.\n"),
        "docs/zh.md": doc("检索", "## 配置\n\n" + zh),
    }


_CORPORA = {1: corpus, 2: corpus2, 3: corpus3, 4: corpus4}


@pytest.mark.parametrize("version", sorted(_CORPORA))
def test_an_older_index_is_migrated_in_place_to_what_a_fresh_ingest_writes(
    tmp_path: Path, version: int
) -> None:
    fresh, old = plant_old_index(
        tmp_path, _CORPORA[version](), DATA / f"schema{version}.db", version
    )
    kb = KnowledgeBase.open(old)
    report = kb.ingest()  # the same files: nothing to parse, only the migration
    assert {r.status for r in report.results} == {"unchanged"}
    assert {h.file_path for h in kb.search("beta gamma").hits} == {"docs/tagged.md"}
    if version >= 2:  # a label past the cap is found through the document's first chunk
        assert {h.file_path for h in kb.search("lbl0399x").hits} == {"docs/many.md"}
    kb.close()
    assert _dump(old / ".kenso" / "docs.db") == _dump(fresh / ".kenso" / "docs.db")
    # stored as a fresh ingest stores it: the chunk text packed (schema 4) byte for byte
    assert _stored(old / ".kenso" / "docs.db") == _stored(fresh / ".kenso" / "docs.db")
    conn = connect_raw(old / ".kenso" / "docs.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    own = conn.execute("SELECT count(*) FROM chunk_rows WHERE tags IS NOT NULL").fetchone()[0]
    assert own == 0
    conn.close()


def _build(version: int, src: Path) -> None:
    """Write data/schema{version}.db with the kenso-git checkout at `src` (run by hand)."""
    sys.path.insert(0, str(src))
    for name in [m for m in sys.modules if m.startswith("kenso_git")]:
        del sys.modules[name]
    from kenso_git.kb import KnowledgeBase as OldKB

    with tempfile.TemporaryDirectory() as tmp:
        root = init_repo(Path(tmp) / "repo", _CORPORA[version]())
        kb = OldKB.open(root)
        kb.ingest()
        kb.close()
        conn = sqlite3.connect(root / ".kenso" / "docs.db")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.close()
        DATA.mkdir(exist_ok=True)
        shutil.copy(root / ".kenso" / "docs.db", DATA / f"schema{version}.db")


if __name__ == "__main__":
    _build(int(sys.argv[1]), Path(sys.argv[2]))
