"""The typo dictionary follows each write by re-reading only the documents that changed."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked import fuzzy
from kenso_git.store import docwords
from kenso_git.store import vocab
from kenso_git.text.titlewords import WordSplitter
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import vocabulary_pairs

FULL_READ = fuzzy._WORDS_SQL  # the statement that reads every document's words


def _repo(tmp_path: Path, n: int = 12) -> Path:
    files = {
        f"docs/topic{i}.md": doc(f"Topic {i} handbook", f"Topic {i} has words enough, {i}.\n")
        for i in range(n)
    }
    files["docs/gateway.md"] = doc("Gateway rotation", "Rotating gateway keys, in detail.\n")
    return init_repo(tmp_path / "repo", files)


def _load(db: Path) -> tuple[fuzzy.Dictionary | None, list[str]]:
    conn = connect_raw(db)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        return fuzzy.load_dictionary(conn), statements
    finally:
        conn.close()


def test_an_edit_re_reads_that_document_only_and_equals_a_full_read(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    first, _ = _load(db)
    assert first is not None and "gateway" in first.words
    (root / "docs/gateway.md").write_text(
        doc("Turbine maintenance", "Turbines get serviced twice a year, in detail.\n"), "utf-8"
    )
    (root / "docs/topic3.md").unlink()
    kb.sync()
    after, statements = _load(db)
    assert not [s for s in statements if s.strip() == FULL_READ]  # before: a full read
    assert after is not None and "turbine" in after.words and "gateway" not in after.words
    assert "handbook" in after.words and "topic3.md" not in str(after.owners["handbook"])
    fuzzy._cache.clear()
    full, statements = _load(db)
    assert not [s for s in statements if s.strip() == FULL_READ]  # from doc_words
    assert after == full  # the same words, lengths and owners as a read from scratch
    conn = connect_raw(db)
    conn.execute("DROP TABLE doc_words")  # an index written before the table
    conn.commit()
    conn.close()
    fuzzy._cache.clear()
    from_chunks, statements = _load(db)
    assert [s for s in statements if s.strip() == FULL_READ]
    assert from_chunks == full  # the writer's words are those the chunks give


def test_words_a_writer_left_for_another_version_of_a_file_are_not_used(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    fuzzy._cache.clear()
    right, _ = _load(db)
    # what a writer that does not know the table leaves: a row of an older blob
    conn = connect_raw(db)
    conn.execute(
        "UPDATE doc_words SET blob_id = ?, words = 'zebra' WHERE path = 'docs/gateway.md'",
        ("0" * 40,),
    )
    conn.commit()
    conn.close()
    fuzzy._cache.clear()
    read, statements = _load(db)
    assert read is not None and "zebra" not in read.words and "gateway" in read.words
    assert read == right
    assert [s for s in statements if "json_each" in s and "FROM chunks" in s]


def test_correction_sees_a_new_title_word_after_a_write(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    assert kb.search("turbines").hits == ()
    (root / "docs/turbine.md").write_text(
        doc("Turbine maintenance", "Turbines get serviced twice a year, in detail.\n"), "utf-8"
    )
    kb.sync()
    result = kb.search("turbnie")
    assert result.corrected_query == "turbine"


_WORDS = st.frozensets(st.sampled_from(["gate", "gates", "key", "keys", "rotate", "ab", "zeta"]))
_DOCS = st.dictionaries(st.sampled_from([f"d{i}.md" for i in range(6)]), _WORDS, max_size=6)


@settings(max_examples=300, deadline=None)
@given(before=_DOCS, after=_DOCS)
def test_patching_the_dictionary_equals_building_it_again(
    before: dict[str, frozenset[str]], after: dict[str, frozenset[str]]
) -> None:
    old = fuzzy._build(before)
    assume(old is not None)
    none: frozenset[str] = frozenset()
    edits = {
        p: (before.get(p, none), after.get(p, none))
        for p in set(before) | set(after)
        if before.get(p, none) != after.get(p, none)
    }
    assert fuzzy._patched(old, edits) == fuzzy._build(after)


def test_the_words_kept_at_write_time_are_those_the_chunks_give(tmp_path: Path) -> None:
    tagged = (
        "---\ntitle: Front Matter Title (beta)\n"
        'tags: [Alpha Tag, "gamma-ray", 42, "x", "Mixed CASE words"]\ncategory: Ops Guides\n'
        "---\n# Heading One: intro\n\nBody text long enough to be indexed by the tool.\n\n"
        '## Second "quoted" heading + more\n\nMore text, so that this chunk is indexed too.\n'
    )
    root = init_repo(tmp_path / "repo", {"docs/tagged.md": tagged, "docs/plain.md": doc("Plain")})
    KnowledgeBase.open(root).ingest()
    conn = connect_raw(root / ".kenso" / "docs.db")
    try:
        kept = {p: tuple(w.split()) for p, (_b, w) in docwords.read(conn, None).items()}
        rows = conn.execute(fuzzy._WORDS_SQL)
        from_chunks = {
            p: tuple(sorted(w)) for p, w in vocab._chunk_words(rows, WordSplitter()).items()
        }
    finally:
        conn.close()
    assert kept == from_chunks
    assert {"alpha", "gamma-ray", "42", "mixed", "ops", "beta", "quoted"} <= set(
        kept["docs/tagged.md"]
    )


def _statements(db: Path, run) -> list[str]:
    conn = connect_raw(db)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        run(conn)
    finally:
        conn.close()
    return statements


def test_a_first_zero_hit_search_loads_no_whole_dictionary(tmp_path: Path) -> None:
    """#32: the first zero-hit search of a process built the dictionary from every document's
    words (0.6 s, +79 MB at 48,600 docs); it now asks the vocabulary table per term."""
    root = _repo(tmp_path)
    KnowledgeBase.open(root).ingest()
    fuzzy._cache.clear()
    fuzzy._within_cap.clear()
    found: list[str | None] = []
    statements = _statements(
        root / ".kenso" / "docs.db", lambda conn: found.append(fuzzy.correct(conn, "gatewya keys"))
    )
    assert found == ["gateway keys"]
    whole = [
        s
        for s in statements
        if ("FROM files" in s or "FROM doc_words" in s or "FROM chunks" in s) and "WHERE" not in s
    ]
    assert whole == [], whole
    assert not fuzzy._cache  # nothing loaded whole for later calls either


def test_an_index_another_writer_touched_is_corrected_as_before_then_filled_again(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    conn = connect_raw(db)
    with conn:  # what a writer that does not know the table leaves: a new generation only
        conn.execute("DELETE FROM vocab_words WHERE word = 'gateway'")
        conn.execute("UPDATE meta SET value = value || '1' WHERE key = 'generation'")
    conn.close()
    conn = connect_raw(db)
    try:
        assert not vocab.is_current(conn)
        assert fuzzy.correct(conn, "gatewya") == "gateway"  # the dictionary, built in Python
    finally:
        conn.close()
    (root / "docs/new.md").write_text(doc("Turbine maintenance"), "utf-8")
    kb.sync()
    conn = connect_raw(db)
    try:
        assert vocab.is_current(conn)
        assert fuzzy.correct(conn, "gatewya turbnie") == "gateway turbine"
        pairs, stored = vocabulary_pairs(conn)
        assert stored == pairs
        words = {(w, len(w)) for w, _ in pairs}
        assert set(conn.execute("SELECT word, len FROM vocab_words")) == words
    finally:
        conn.close()


_TERMS = st.text(alphabet="abegikorstyz", min_size=1, max_size=9)


@settings(max_examples=200, deadline=None)
@given(
    docs=_DOCS, terms=st.lists(_TERMS, min_size=1, max_size=4), hidden=st.sets(st.integers(0, 5))
)
def test_the_table_corrects_exactly_as_the_dictionary(docs, terms, hidden) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for statement in vocab.DDL:
        conn.execute(statement)
    for path, words in docs.items():
        vocab.apply(conn, path, (), words)
    conn.execute("INSERT INTO meta VALUES ('generation', '7'), ('vocab_generation', '7')")
    shows = lambda p: int(p[1]) not in hidden  # noqa: E731
    table = fuzzy._Vocabulary(conn)
    built = fuzzy._build(docs)
    for term in terms:
        for gate in (None, shows):
            in_table = table.visible(term, gate)
            assert in_table == (built is not None and built.visible(term, gate))
            if built is None:
                continue
            seen = None if gate is None else (lambda w, g=gate: built.visible(w, g))
            table_seen = None if gate is None else (lambda w, g=gate: table.visible(w, g))
            assert table.closest(term, table_seen) == built.closest(term, seen)
    conn.close()


def test_a_run_inserts_its_vocabulary_in_bounded_batches(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(vocab, "ADD_EVERY", 3)  # 100,000 docs lend ~1.6 M rows: never all held
    root = _repo(tmp_path, n=60)
    KnowledgeBase.open(root).ingest()
    conn = connect_raw(root / ".kenso" / "docs.db")
    try:
        pairs, stored = vocabulary_pairs(conn)
        assert stored == pairs
        assert fuzzy.correct(conn, "gatewya") == "gateway"
    finally:
        conn.close()


def test_the_vocabulary_names_each_document_once_and_forgets_it_with_the_document(
    tmp_path: Path,
) -> None:
    """#26's size target: a row per (word, document) that repeated the document's path cost
    91 MB of a 707 MB index at 30x the corpus; the rows now name documents by id."""
    root = _repo(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    db = root / ".kenso" / "docs.db"
    conn = connect_raw(db)
    try:
        before = {r[0] for r in conn.execute(f"SELECT path FROM {vocab.DOCS}")}
        assert "docs/gateway.md" in before
        conn.execute("CREATE TABLE vocab (word TEXT, path TEXT)")  # the first form, left over
        conn.execute("UPDATE meta SET value = 'stale' WHERE key = ?", (vocab.META_SEALED,))
        conn.commit()
    finally:
        conn.close()
    (root / "docs" / "gateway.md").unlink()
    kb.sync()
    conn = connect_raw(db)
    try:
        assert vocab.is_current(conn)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "vocab" not in tables  # the first form is dropped when the tables are made again
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({vocab.TABLE})")]
        assert columns == ["word", "doc"]
        lending = {r[0] for r in conn.execute(f"SELECT path FROM {vocab.DOCS}")}
        indexed = {r[0] for r in conn.execute("SELECT path FROM files")}
        assert lending == before - {"docs/gateway.md"} and lending <= indexed
        assert vocab.owners(conn, "gateway") == []
        (orphans,) = conn.execute(
            f"SELECT count(*) FROM {vocab.TABLE} WHERE doc NOT IN (SELECT id FROM {vocab.DOCS})"
        ).fetchone()
        assert orphans == 0
    finally:
        conn.close()


def test_a_scoped_correction_asks_who_owns_only_the_words_close_enough(tmp_path: Path) -> None:
    """#27: each word of a misspelt query checked the owners of every dictionary word of its
    length band (a statement each: thousands on the docs corpus, seconds of CPU under 40
    hostile calls); only the words close enough to be the answer need it, and each length
    band is read once per call."""
    files = {  # 40 more words in the band of a 7-letter term
        f"docs/w{a}{b}.md": doc(f"Zq{a}{b}vel") for a in "klmnp" for b in "rstuvwxy"
    }
    root = init_repo(tmp_path / "repo", {**files, "docs/gateway.md": doc("Gateway rotation")})
    (root / "docs/handbook.md").write_text(doc("Handbook"), "utf-8")
    KnowledgeBase.open(root).ingest()
    asked: list[str] = []

    def shows(path: str) -> bool:
        asked.append(path)
        return True

    found: list[str | None] = []
    statements = _statements(
        root / ".kenso" / "docs.db",
        lambda conn: found.append(fuzzy.correct(conn, "gatewya rotatoin handbok", shows)),
    )
    assert found == ["gateway rotation handbook"]
    owners = [s for s in statements if "v.word =" in s]
    # the three words of the query, then one answer each: never the whole band
    assert len(owners) <= 6, owners
    bands = [s for s in statements if "len BETWEEN" in s]
    assert len(bands) == len(set(bands)), bands
