"""A sync of a few docs rewrites their links without reading every file's row (#16).

At 30x (48,600 docs) a hook's sync of 10 docs spent 0.43 s in `rebuild_links`: it read
every file's relations and every indexed path to resolve the links of those 10. Counted
here in SQLite VM steps (deterministic), against a corpus four times as large.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kenso_git.index.links import rebuild_links
from kenso_git.kb import KnowledgeBase
from kenso_git.store.connection import transaction
from tests.helpers import doc
from tests.helpers import init_repo
from tests.shapes import relates_plain


def _corpus(root: Path, count: int) -> Path:
    files: dict[str, str | bytes] = {
        f"docs/d{i:04d}.md": doc(
            f"Doc {i}",
            f"Doc {i} links to [the next one](d{i + 1:04d}.md) and [the first](/docs/d0000.md)"
            f" and [a page elsewhere](/elsewhere/d{i}.md), with words enough to index.\n",
            relates_to=[f"docs/d{(i + 7) % count:04d}.md"],
        )
        for i in range(count)
    }
    init_repo(root, files)
    KnowledgeBase.open(root).ingest()
    return root / ".kenso" / "docs.db"


def _steps(db: Path, sources: list[str]) -> tuple[int, list[tuple[str, str, str]]]:
    """VM steps (in hundreds) of rewriting `sources`' links, and their links after."""
    conn = sqlite3.connect(db, isolation_level=None)
    ticks = [0]

    def tick() -> int:
        ticks[0] += 1
        return 0

    try:
        with transaction(conn):
            conn.set_progress_handler(tick, 100)
            rebuild_links(conn, sources=sources)
            conn.set_progress_handler(None, 0)
        links = conn.execute(
            "SELECT source_path, target_path, relation_type FROM links WHERE source_path = ? "
            "ORDER BY 1, 2, 3",
            (sources[0],),
        ).fetchall()
    finally:
        conn.close()
    return ticks[0], links


def test_rewriting_a_few_docs_links_costs_the_same_in_a_corpus_four_times_larger(
    tmp_path: Path,
) -> None:
    small = _corpus(tmp_path / "small", 100)
    large = _corpus(tmp_path / "large", 400)
    sources = [f"docs/d{i:04d}.md" for i in (3, 40, 77)]
    small_steps, small_links = _steps(small, sources)
    large_steps, large_links = _steps(large, sources)
    # Before: both queries scanned every files row (4x the steps); now a few lookups each.
    assert large_steps < small_steps * 1.5, (small_steps, large_steps)
    assert small_links == [
        ("docs/d0003.md", "docs/d0000.md", "links_to"),
        ("docs/d0003.md", "docs/d0004.md", "links_to"),
        ("docs/d0003.md", "docs/d0010.md", "related"),
    ]
    assert large_links == small_links


def _lookups(db: Path, source: str) -> int:
    """Reads of the files table made by rewriting `source`'s links."""
    conn = sqlite3.connect(db, isolation_level=None)
    seen: list[str] = []
    try:
        with transaction(conn):
            conn.set_trace_callback(seen.append)
            rebuild_links(conn, sources=[source])
            conn.set_trace_callback(None)
    finally:
        conn.close()
    return sum(1 for sql in seen if sql.lstrip().startswith("SELECT") and "files" in sql)


def test_a_doc_of_many_relates_to_entries_is_linked_without_a_lookup_per_entry(
    tmp_path: Path,
) -> None:
    # Each lookup of a files row reads the row whole, the doc's own megabytes of relations
    # included: a lookup per entry made one 2 MB doc of `relates_to` entries take 205 s.
    counts = []
    for n in (1_000, 4_000):
        root = tmp_path / str(n)
        init_repo(root, {"docs/many.md": relates_plain(n), "docs/d7.md": doc("Seven", "x " * 40)})
        KnowledgeBase.open(root).ingest()
        counts.append(_lookups(root / ".kenso" / "docs.db", "docs/many.md"))
    assert counts[1] == counts[0] < 10, counts
