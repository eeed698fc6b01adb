"""The CJK trigram side index (store/trigram.py) and its query path (search/ranked/cjk.py), #18."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git import KnowledgeBase
from kenso_git.search.ranked.cjk import split_terms
from kenso_git.store import trigram
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import fail_next_ingest
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

ZH = doc(
    "全文检索",
    "## 配置方法\n\n本文介绍如何配置全文检索引擎的分词器和索引参数。\n\n"
    "## 常见问题\n\n如果查询没有结果，请检查数据库文件是否存在。\n",
)
JA = doc(
    "インストール",
    "## 手順\n\nパッケージマネージャーでインストールしてから、設定ファイルを編集します。\n",
)
KO = doc(
    "설치 안내",
    "## 준비\n\n먼저 저장소를 복제하고 의존성을 설치합니다. 그다음 설정 파일을 열어 "
    "경로를 확인합니다.\n",
)
EN = doc("Deploy Guide", "## Release steps\n\nWatch the canary closely before the rollout.\n")
ZH_EDITED = doc(
    "全文检索",
    "## 新章节\n\n这里只讲向量检索，以及如何把嵌入向量写进同一个数据库事务。"
    "写入失败时整个事务回滚，读者看到的仍是旧的索引。\n",
)
EN_NOW_ZH = doc(
    "Deploy Guide",
    "## Release steps\n\n部署之前先备份，然后逐台重启服务并观察日志输出。"
    "如果错误率上升，立即回滚到上一个版本。\n",
)
DOCS: dict[str, str | bytes] = {
    "docs/zh.md": ZH,
    "docs/ja.md": JA,
    "docs/ko.md": KO,
    "docs/en.md": EN,
}


def _kb(root: Path) -> KnowledgeBase:
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    return _kb(init_repo(tmp_path / "repo", DOCS))


def _paths(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.file_path for h in kb.search(query, limit=5).hits]


def _side(db: Path) -> list[tuple[int, str, str, str]]:
    with connect_raw(db) as conn:
        return conn.execute(
            f"SELECT rowid, title, section_path, content FROM {trigram.TABLE} ORDER BY rowid"
        ).fetchall()


def _fresh_side(db: Path) -> list[tuple[str, str, str]]:
    """What a fresh fill from chunk_rows would hold, keyed by content (ids differ)."""
    with connect_raw(db) as conn:
        sql = (
            "SELECT coalesce(title, '') || coalesce(' ' || doc_title, ''), "
            "coalesce(section_path, ''), content FROM chunk_rows"
        )
        return sorted(r for r in conn.execute(sql) if trigram.has_cjk("".join(r)))


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("分词器", "docs/zh.md"),  # a word inside a Chinese sentence
        ("数据库", "docs/zh.md"),
        ("检查", "docs/zh.md"),  # two characters: below the trigram length
        ("ファイル", "docs/ja.md"),  # Japanese: Katakana inside a Kanji-Kana run
        ("저장소", "docs/ko.md"),  # Korean, a word with its particle cut off
        ("配置 索引参数", "docs/zh.md"),  # two words, both inside sentences
    ],
)
def test_a_cjk_doc_is_found_by_an_inner_word(kb: KnowledgeBase, query: str, path: str) -> None:
    hits = kb.search(query, limit=5).hits
    assert [h.file_path for h in hits][:1] == [path]
    assert "<mark>" in hits[0].highlight


def test_without_the_side_index_the_inner_word_is_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KENSO_CJK", "off")
    kb = _kb(init_repo(tmp_path / "repo", DOCS))
    assert not trigram.present(connect_raw(kb.db_path))
    assert _paths(kb, "分词器") == []  # what the switch buys: unicode61 keeps the run whole


def test_a_reworded_sentence_still_finds_the_doc(kb: KnowledgeBase) -> None:
    # not a substring of the doc: the OR stage ranks by shared character trigrams
    assert _paths(kb, "怎样配置检索引擎分词")[:1] == ["docs/zh.md"]


def test_english_queries_and_docs_are_untouched(kb: KnowledgeBase) -> None:
    assert _paths(kb, "canary rollout") == ["docs/en.md"]
    contents = [row[3] for row in _side(kb.db_path)]
    assert contents and not any("canary" in c for c in contents)


def test_a_corpus_without_cjk_leaves_the_side_table_empty(tmp_path: Path) -> None:
    kb = _kb(init_repo(tmp_path / "repo", {"docs/en.md": EN, "a.md": doc("Naïve café")}))
    assert trigram.present(connect_raw(kb.db_path))
    assert _side(kb.db_path) == []


def test_the_side_index_follows_edits_and_deletes(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    kb = _kb(root)
    write(root, {"docs/zh.md": ZH_EDITED})
    (root / "docs/ja.md").unlink()
    write(root, {"docs/en.md": EN_NOW_ZH})
    git(root, "add", "-A")
    kb.ingest()
    assert sorted(r[1:] for r in _side(kb.db_path)) == _fresh_side(kb.db_path)
    assert _paths(kb, "分词器") == []
    assert _paths(kb, "向量检索") == ["docs/zh.md"]
    assert _paths(kb, "備份") == [] and _paths(kb, "备份") == ["docs/en.md"]
    assert _paths(kb, "設定ファイル") == []


def test_switching_the_mode_drops_and_refills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    kb = _kb(root)
    before = sorted(r[1:] for r in _side(kb.db_path))
    monkeypatch.setenv("KENSO_CJK", "off")
    _kb(root)
    assert not trigram.present(connect_raw(kb.db_path))
    monkeypatch.setenv("KENSO_CJK", "auto")
    again = _kb(root)
    assert sorted(r[1:] for r in _side(again.db_path)) == before
    assert _paths(again, "分词器") == ["docs/zh.md"]


def test_a_failed_ingest_leaves_the_side_index_as_it_was(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    kb = _kb(root)
    before = _side(kb.db_path)
    write(root, {"docs/zh.md": ZH_EDITED})
    fail_next_ingest(kb.db_path)  # the ingest fails after its chunk writes
    with pytest.raises(Exception, match="disk gone"):
        kb.ingest()
    assert _side(kb.db_path) == before
    assert _paths(kb, "分词器") == ["docs/zh.md"]


def test_the_category_filter_and_path_gate_apply(kb: KnowledgeBase) -> None:
    assert _paths(kb, "数据库") == ["docs/zh.md"]
    assert kb.search("数据库", category="nothing-such").hits == ()


def test_query_terms() -> None:
    assert split_terms("如何 Python安装 of 検索エンジン") == (
        ["python", "検索エンジン"],
        ["如何", "安装"],
    )


def test_the_sql_test_for_cjk_text_agrees_with_the_python_one() -> None:
    edges = [c for a, b in trigram.CJK_RANGES for c in (a - 1, a, b, b + 1)]
    samples = [f"x{chr(c)}y" for c in edges] + ["plain", "curly ’quotes’ — dash", "é", ""]
    conn = connect_raw(":memory:")
    conn.execute("CREATE TABLE r(content, title, doc_title, section_path)")
    for text in samples:
        conn.execute("DELETE FROM r")
        conn.execute("INSERT INTO r VALUES (?, NULL, NULL, NULL)", (text,))
        found = conn.execute(
            f"SELECT count(*) FROM r WHERE {trigram.cjk_condition('r')}"
        ).fetchone()
        assert bool(found[0]) == trigram.has_cjk(text), repr(text)


def test_a_query_of_many_punctuated_cjk_words_is_capped(kb: KnowledgeBase) -> None:
    query = "、".join(["数据", "库"] * 600)  # 1,800 characters, one whitespace word
    long, short = split_terms(query)
    assert len(long) + len(short) <= 64
    many = "、".join(chr(0x4E00 + i) for i in range(900))  # 900 distinct short terms
    assert sum(map(len, split_terms(many))) == 64
    assert kb.search(many, limit=5).hits == ()  # answered, under the caps


def test_a_corpus_without_cjk_gets_the_same_main_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The side index's insert trigger once gave every bulk INSERT a statement savepoint,
    # at which FTS5 writes out its pending terms: the main index of a cold ingest came out
    # in many more segments (20% slower searches) though the side table stayed empty.
    docs: dict[str, str | bytes] = {
        f"docs/d{i:03}.md": doc(f"Page {i}", f"## Part {i}\n\n" + f"Word{i} and shared text. " * 8)
        for i in range(200)
    }
    layout = []
    for mode in ("off", "auto"):
        monkeypatch.setenv("KENSO_CJK", mode)
        kb = _kb(init_repo(tmp_path / mode, docs))
        with connect_raw(kb.db_path) as conn:
            layout.append(conn.execute("SELECT count(*) FROM chunks_fts_data").fetchone()[0])
    assert layout[0] == layout[1]
