"""Each link end is stored once (schema 4, #16): `paths` + `link_rows` behind the `links`
view, kept equal to a fresh ingest by syncs, writable through the view, and migrated
from schema 3.

`data/schema3-links.db` is the index kenso-git 603e974 wrote for `corpus()`; rebuild it
with

    PYTHONPATH=. python tests/store/test_link_paths.py /path/to/a/checkout/of/that/commit
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest

from kenso_git.errors import DatabaseError
from kenso_git.errors import UsageError
from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from kenso_git.store.connection import WRITE_BUSY_MS
from kenso_git.store.connection import open_writer
from kenso_git.store.connection import set_write_wait
from kenso_git.store.connection import transaction
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.store.planted import plant_old_index
from tests.triggers.githooks.indexdump import dump

DATA = Path(__file__).with_name("data")
FIXTURE = DATA / "schema3-links.db"
# A long folder: the old table repeated it in every row and in three indexes.
DEEP = "docs/" + "/".join(f"a-rather-long-folder-name-{i}" for i in range(4))
_LINK_OBJECTS = (
    "links",
    "sqlite_autoindex_links_1",
    "idx_links_source",
    "idx_links_target",
    "paths",
    "sqlite_autoindex_paths_1",
    "link_rows",
    "idx_link_rows_target",
)


def corpus(pages: int = 12) -> dict[str, str]:
    """Pages that link to each other inline and through `relates_to` (resolved, of two
    relation types, and one unresolved target)."""
    files = {}
    for i in range(pages):
        inline = " ".join(f"[p{j}](page-{j:02d}.md)" for j in range(pages) if j != i)
        related = [f"page-{(i + 1) % pages:02d}.md", "missing/nowhere.md"]
        body = f"Page {i} explains the widget pipeline, long enough to be indexed. {inline}\n"
        files[f"{DEEP}/page-{i:02d}.md"] = doc(f"Page {i}", body, relates_to=related)
    files["docs/other.md"] = doc(
        "Other", f"See [the first page]({DEEP[5:]}/page-00.md) for the widget words.\n"
    )
    return files


def _fresh(root: Path) -> KnowledgeBase:
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def _db(root: Path) -> Path:
    return root / ".kenso" / "docs.db"


def _links(db: Path) -> list[tuple[str, str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT source_path, target_path, relation_type, raw_target FROM links")
        return sorted(rows)
    finally:
        conn.close()


def _orphans(db: Path) -> list[str]:
    """Paths no link names (a sync must not leave them behind)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT path FROM paths WHERE path NOT IN (SELECT source_path FROM links "
            "UNION SELECT target_path FROM links)"
        )
        return [r[0] for r in rows]
    finally:
        conn.close()


def test_link_storage_grows_with_the_links_not_with_their_path_lengths(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", corpus(30))
    _fresh(root).close()
    conn = sqlite3.connect(_db(root))
    count = conn.execute("SELECT count(*) FROM links").fetchone()[0]
    names = ", ".join(f"'{n}'" for n in _LINK_OBJECTS)
    (used,) = conn.execute(f"SELECT sum(pgsize) FROM dbstat WHERE name IN ({names})").fetchone()
    conn.close()
    assert count == 30 * 29 + 30 * 2 + 1  # inline, relates_to (one unresolved), other.md
    # schema 3: ~880 bytes a link (two 120-character paths in the row and three indexes);
    # now two ids, the relation and the raw target (a short relative href here)
    assert used / count < 120, used / count


def test_syncs_keep_the_links_and_paths_equal_to_a_fresh_ingest(tmp_path: Path) -> None:
    files = corpus()
    root = init_repo(tmp_path / "repo", files)
    kb = _fresh(root)
    steps: list[dict[str, str | None]] = [
        {f"{DEEP}/page-03.md": None},  # a deleted page: its links, and the links to it
        {f"{DEEP}/page-04.md": doc("Page 4", "Now only words, long enough to be indexed.\n")},
        {"docs/other.md": None, "docs/new.md": doc("New", "Links [x](other.md) and words.\n")},
        {f"{DEEP}/page-03.md": files[f"{DEEP}/page-03.md"]},  # back again
    ]
    for step in steps:
        for rel, text in step.items():
            if text is None:
                (root / rel).unlink()
            else:
                write(root, {rel: text})
        kb.ingest()
        fresh = tmp_path / f"fresh{len(list(tmp_path.glob('fresh*')))}"
        shutil.copytree(root / "docs", fresh / "docs")
        init_repo(fresh, {})
        _fresh(fresh).close()
        assert _links(_db(root)) == _links(_db(fresh))
        assert _orphans(_db(root)) == []
    kb.close()


def test_tools_read_and_write_the_links_view_as_kenso_s_table(tmp_path: Path) -> None:
    conn = open_writer(tmp_path / "i.db", fresh=True)
    with transaction(conn):
        conn.execute("INSERT INTO links(source_path, target_path) VALUES ('a.md', 'b.md')")
        conn.execute(
            "INSERT OR IGNORE INTO links(source_path, target_path, relation_type) "
            "VALUES ('a.md', 'b.md', 'related'), ('b.md', 'c.md', 'depends')"
        )
    with pytest.raises(sqlite3.IntegrityError), transaction(conn):  # kenso's UNIQUE
        conn.execute("INSERT INTO links(source_path, target_path) VALUES ('a.md', 'b.md')")
    rows = conn.execute("SELECT * FROM links ORDER BY source_path").fetchall()
    assert [tuple(r) for r in rows] == [
        (None, "a.md", "b.md", "related", None, None),
        (None, "b.md", "c.md", "depends", None, None),
    ]
    with transaction(conn):
        conn.execute("DELETE FROM links WHERE source_path = 'a.md'")
    paths = [r[0] for r in conn.execute("SELECT path FROM paths ORDER BY path")]
    assert paths == ["b.md", "c.md"]  # a.md went with its last link
    conn.close()


def test_a_schema_3_index_is_migrated_in_place_to_what_a_fresh_ingest_writes(
    tmp_path: Path,
) -> None:
    fresh, old = plant_old_index(tmp_path, corpus(), FIXTURE, 3)
    kb = KnowledgeBase.open(old)
    report = kb.ingest()  # the same files: nothing to parse, only the migration
    assert {r.status for r in report.results} == {"unchanged"}
    assert [r["related_path"] for r in kb.get_related("docs/other.md")] == [f"{DEEP}/page-00.md"]
    kb.close()
    assert _links(_db(old)) == _links(_db(fresh))
    assert dump(_db(old)) == dump(_db(fresh))
    conn = sqlite3.connect(_db(old))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    kinds = dict(conn.execute("SELECT name, type FROM sqlite_master WHERE name LIKE 'link%'"))
    conn.close()
    views = {"links": "view", "links_vi": "trigger", "links_vd": "trigger"}
    assert kinds == {**views, "link_rows": "table"}
    assert _orphans(_db(old)) == []


def _old_index(tmp_path: Path) -> Path:
    """A work tree whose index is the schema-3 fixture, recorded as built there."""
    root = init_repo(tmp_path / "old", corpus())
    (root / ".kenso").mkdir()
    shutil.copy(FIXTURE, _db(root))
    conn = sqlite3.connect(_db(root))
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(root), schema.META_ROOT))
    conn.close()
    return root


def test_a_read_of_a_schema_3_index_that_no_sync_writes_migrates_it_first(
    tmp_path: Path,
) -> None:
    root = _old_index(tmp_path)
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)  # no sync opens a writer
    # before: "no such table: link_rows" (sqlite3.OperationalError) from every read
    assert kb.state(check_stale=False).links == len(_links(FIXTURE))
    assert [r["related_path"] for r in kb.get_related("docs/other.md")] == [f"{DEEP}/page-00.md"]
    kb.close()
    conn = sqlite3.connect(_db(root))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    conn.close()


def test_a_schema_3_index_of_another_work_tree_is_refused_not_upgraded(tmp_path: Path) -> None:
    root = _old_index(tmp_path)
    shutil.copy(FIXTURE, _db(root))  # it records the folder it was built in
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)
    with pytest.raises(UsageError):
        kb.get_related("docs/other.md")
    kb.close()
    conn = sqlite3.connect(_db(root))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()


def test_a_schema_3_index_that_cannot_be_upgraded_is_named_with_what_to_do(
    tmp_path: Path,
) -> None:
    root = _old_index(tmp_path)
    holder = sqlite3.connect(_db(root), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the write lock throughout
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)
    set_write_wait(0)
    try:
        with pytest.raises(DatabaseError) as caught:
            kb.get_related("docs/other.md")
    finally:
        set_write_wait(WRITE_BUSY_MS / 1000)
        holder.execute("ROLLBACK")
        holder.close()
        kb.close()
    assert "older kenso-git (schema 3)" in caught.value.message
    assert caught.value.hint is not None and "kenso-git sync" in caught.value.hint


def _build(src: Path) -> None:
    """Write data/schema3-links.db with the kenso-git checkout at `src` (run by hand)."""
    sys.path.insert(0, str(src))
    for name in [m for m in sys.modules if m.startswith("kenso_git")]:
        del sys.modules[name]
    from kenso_git.kb import KnowledgeBase as OldKB

    with tempfile.TemporaryDirectory() as tmp:
        root = init_repo(Path(tmp) / "repo", corpus())
        kb = OldKB.open(root)
        kb.ingest()
        kb.close()
        conn = sqlite3.connect(_db(root))
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.close()
        shutil.copy(_db(root), FIXTURE)


if __name__ == "__main__":
    _build(Path(sys.argv[1]))


def test_links_sorted_here_or_in_sql_are_stored_alike(tmp_path: Path, monkeypatch) -> None:
    """add_links sorts up to SORT_HERE_UP_TO links in Python, more in SQL: the same rows,
    a duplicate keeping its first raw form either way."""
    from kenso_git.store import links

    rows = [
        ("b.md", "a.md", "related", "a"),
        ("a.md", "c/ü.md", "links_to", "c/ü.md"),
        ("b.md", "a.md", "related", "./a.md"),  # a duplicate: the first raw form stays
        ("a.md", "b.md", "related", "b"),
        ("c/ü.md", "a.md", "related", None),
    ]
    stored = []
    for up_to in (links.SORT_HERE_UP_TO, 0):
        monkeypatch.setattr(links, "SORT_HERE_UP_TO", up_to)
        conn = open_writer(tmp_path / f"{up_to}.db", fresh=True)
        links.add_links(conn, rows)
        stored.append(
            (
                conn.execute("SELECT * FROM link_rows ORDER BY 1, 2, 3").fetchall(),
                conn.execute("SELECT * FROM paths ORDER BY id").fetchall(),
            )
        )
        conn.close()
    assert stored[0] == stored[1]
    assert len(stored[0][0]) == 4 and ("./a.md",) not in [(r[3],) for r in stored[0][0]]
