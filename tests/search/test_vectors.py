"""The optional static-vector tier (store/vectors.py, search/ranked/vectors.py, text/embed.py)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from kenso_git import KnowledgeBase
from kenso_git.errors import ConfigError
from kenso_git.search.ranked.vectors import WEIGHT
from kenso_git.store import vectors
from tests.helpers import doc
from tests.helpers import fail_next_ingest
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

pytest.importorskip("wordllama")
embed = pytest.importorskip("kenso_git.text.embed")

DOCS: dict[str, str | bytes] = {
    "docs/deploy.md": doc(
        "Deploy Guide",
        "## Release steps\n\nShip the release to the servers and watch the canary closely.\n",
    ),
    "docs/rollback.md": doc(
        "Rollback Plan",
        "## When a release fails\n\nRevert the servers to the previous release quickly.\n",
    ),
    "docs/pasta.md": doc(
        "Cooking Pasta",
        "## Sauce\n\nBoil water, add salt, and release the pasta into the pot.\n",
    ),
}


def _kb(root: Path, monkeypatch: pytest.MonkeyPatch, on: bool = True) -> KnowledgeBase:
    monkeypatch.setenv("KENSO_VECTORS", "1" if on else "0")
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def _texts(db: Path) -> dict[int, str]:
    """Each chunk's id -> the text its vector is made of."""
    with sqlite3.connect(db) as conn:
        sql = f"SELECT r.id, {vectors.EMBEDDED_TEXT} FROM chunk_rows r"
        return dict(conn.execute(sql).fetchall())


def _stored(db: Path) -> dict[str, bytes]:
    """Each chunk's text (as embedded) -> its stored vector."""
    texts = _texts(db)
    with sqlite3.connect(db) as conn:
        return {texts[i]: v for i, v in conn.execute(f"SELECT id, vec FROM {vectors.TABLE}")}


def _chunk_texts(db: Path) -> list[str]:
    return sorted(_texts(db).values())


def test_every_chunk_has_its_own_vector_after_edits_and_deletes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    kb = _kb(root, monkeypatch)
    write(root, {"docs/deploy.md": doc("Deploy Guide", "## Steps\n\n" + "Roll out slowly. " * 9)})
    (root / "docs/pasta.md").unlink()
    git(root, "add", "-A")
    kb.ingest()
    stored = _stored(kb.db_path)
    assert sorted(stored) == _chunk_texts(kb.db_path)  # one vector per chunk, no stale one
    for text, vec in stored.items():  # each equals a fresh embedding of its chunk
        assert vec == embed.embed([text])[0]


def test_the_blend_is_the_documented_factor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _kb(init_repo(tmp_path / "off", DOCS), monkeypatch, on=False)
    blended = _kb(init_repo(tmp_path / "on", DOCS), monkeypatch, on=True)
    query = "release"
    before = {h.file_path: h for h in plain.search(query, limit=5).hits}
    after = blended.search(query, limit=5).hits
    assert len(after) == len(before) == 3
    for hit in after:
        text = next(t for t in _chunk_texts(blended.db_path) if hit.content in t)
        cosine = embed.cosines(query, [embed.embed([text])[0]])[0]
        factor = hit.score / before[hit.file_path].score
        assert factor == pytest.approx(1 + WEIGHT * cosine, rel=1e-3)
    order = sorted(after, key=lambda h: -h.score)
    assert [h.file_path for h in after] == [h.file_path for h in order]


def test_off_drops_the_table_and_a_failed_ingest_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    kb = _kb(root, monkeypatch)
    before = _stored(kb.db_path)
    write(root, {"docs/deploy.md": doc("Deploy Guide", "## Steps\n\n" + "Roll out slowly. " * 9)})
    fail_next_ingest(kb.db_path)  # the ingest fails after its chunk writes
    with pytest.raises(Exception, match="disk gone"):
        kb.ingest()
    assert _stored(kb.db_path) == before
    with sqlite3.connect(kb.db_path) as conn:
        conn.execute("DROP TRIGGER boom")
    _kb(root, monkeypatch, on=False)
    assert not vectors.present(sqlite3.connect(kb.db_path))


def test_vectors_on_without_wordllama_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    monkeypatch.setitem(sys.modules, "wordllama", None)  # as if the extra were not installed
    monkeypatch.setattr(embed, "_model", None)
    with pytest.raises(ConfigError, match="wordllama is not installed") as caught:
        _kb(root, monkeypatch)
    assert "kenso-git[vectors]" in (caught.value.hint or "")
