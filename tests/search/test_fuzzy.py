"""The typo dictionary follows each write by re-reading only the documents that changed."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.kb import KnowledgeBase
from kenso_git.search import fuzzy
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo

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
    assert [s for s in statements if s.strip() == FULL_READ]
    assert after == full  # the same words, lengths and owners as a read from scratch


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
