"""Property (#26): any sequence of reads, from any folder, with or without `--db`, leaves every
index holding what it held or synced to its own root, and recording that root.

The reads are the library's (search, search_docs, the seed's search, state) and the MCP
service's tools, opened from random folders: inside the index's repository, inside another
repository, and outside git; naming the index with `--db` or not. Edits in the roots between
reads make the query-time sync run.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.errors import KensoError
from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from kenso_git.serve.service import Service
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

FOLDERS = ("a", "a/docs", "b", "b/docs", "plain", "plain/handbook")
READS = ("search", "search_docs", "agent", "state", "tool_search_docs", "tool_search", "tool_state")
DBS = ("none", "a", "x")  # no --db, --db of repo a's index, --db of the external index x


def _held(db: Path) -> tuple[str | None, frozenset[tuple[str, str]]]:
    conn = connect_raw(db)
    try:
        root = conn.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        rows = frozenset(conn.execute("SELECT path, blob_id FROM files"))
    finally:
        conn.close()
    return (root[0] if root else None), rows


def _world(base: Path) -> dict[str, Path]:
    a = init_repo(base / "a", {"docs/a1.md": doc("Alpha", "zeppelin alpha. " * 20)})
    init_repo(base / "b", {"docs/b1.md": doc("Beta", "zeppelin beta. " * 20)})
    write(base / "plain" / "handbook", {"h1.md": doc("Hand", "zeppelin hand. " * 20)})
    KnowledgeBase.open(a).ingest()
    x = base / "x.db"
    handbook = base / "plain" / "handbook"
    KnowledgeBase.open(handbook, db=str(x)).ingest()
    return {"a": a / ".kenso" / "docs.db", "x": x, "a_root": a, "x_root": handbook}


def _read(folder: Path, db: str | None, how: str) -> None:
    with contextlib.suppress(KensoError):  # no index here, or none readable: never a write
        if how.startswith("tool_"):
            service = Service(folder, db=db)
            if how == "tool_search_docs":
                service.search_docs("zeppelin", None, 5)
            elif how == "tool_search":
                service.search("zeppelin")
            else:
                service.state()
            return
        kb = KnowledgeBase.open(folder, db=db)
        try:
            if how == "search":
                kb.search("zeppelin")
            elif how == "search_docs":
                kb.search_docs("zeppelin")
            elif how == "agent":
                kb.agent_search(SearchRequest("zeppelin"))
            else:
                kb.state()
        finally:
            kb.close()


step = st.tuples(
    st.sampled_from(FOLDERS),
    st.sampled_from(DBS),
    st.sampled_from(READS),
    st.sampled_from(("none", "edit_a", "edit_x", "edit_b")),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=1, max_size=8))
def test_reads_from_any_folder_never_change_another_root(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, str, str]]
) -> None:
    base = tmp_path_factory.mktemp("world")
    world = _world(base)
    roots = {"a": str(world["a_root"]), "x": str(world["x_root"])}
    for n, (folder, db_name, how, edit) in enumerate(steps):
        if edit == "edit_a":
            write(world["a_root"], {f"docs/e{n}.md": doc(f"Edit {n}", "zeppelin edit. " * 9)})
        elif edit == "edit_x":
            write(world["x_root"], {f"e{n}.md": doc(f"Edit {n}", "zeppelin edit. " * 9)})
        elif edit == "edit_b":
            write(base / "b", {f"docs/e{n}.md": doc(f"Edit {n}", "zeppelin edit. " * 9)})
        before = {name: _held(world[name]) for name in ("a", "x")}
        db = None if db_name == "none" else str(world[db_name])
        _read(base / folder, db, how)
        for name in ("a", "x"):
            root, rows = _held(world[name])
            assert root == roots[name], (name, folder, db_name, how)
            if rows != before[name][1]:  # a sync ran: it can only have synced its own root
                expected = {
                    p.relative_to(roots[name]).as_posix() for p in Path(roots[name]).rglob("*.md")
                }
                assert {p for p, _ in rows} == expected, (name, folder, db_name, how)
