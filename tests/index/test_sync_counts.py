"""A no-change sync reports the row counts it kept, not a count of every files row (#16).

At 30x (48,600 docs) counting the rows by status read every wide files row: 20-70 ms of
each no-change sync. The counts are kept in meta with the write generation they belong
to; any write bumps the generation, so a kept count is used only while it is current.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store.files import META_COUNTS
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write


def _meta(db: Path, key: str) -> str | None:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    finally:
        conn.close()
    return None if row is None else str(row[0])


def _set_counts(db: Path, value: str) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, META_COUNTS))
    conn.close()


def test_kept_counts_serve_no_change_syncs_until_a_write(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"docs/a.md": doc("Alpha"), "docs/b.md": doc("Beta")}
    root = init_repo(tmp_path / "repo", {**files, "docs/short.md": "x"})
    db = root / ".kenso" / "docs.db"
    kb = KnowledgeBase.open(root)
    kb.sync()
    kb.sync()  # the docs written just before the first sync are looked at once more
    report = kb.sync()  # nothing to look at: the rows are counted, and the counts kept
    assert (report.count("unchanged"), report.count("skipped")) == (2, 1)
    generation, indexed, other = json.loads(_meta(db, META_COUNTS) or "null")
    assert (generation, indexed, other) == (_meta(db, "generation"), 2, 1)
    # The next no-change sync takes the kept counts as they are (shown by planting others).
    _set_counts(db, json.dumps([generation, 40, 7]))
    report = kb.sync()
    assert (report.total, report.count("unchanged"), report.count("skipped")) == (47, 40, 7)
    # A write bumps the generation: the planted counts no longer apply.
    write(root, {"docs/c.md": doc("Gamma")})
    kb.sync()
    report = kb.sync()
    assert (report.count("unchanged"), report.count("skipped")) == (3, 1)
    kb.close()
