"""`check_if_changed` reads every page of an index whose file changed outside kenso-git
(`PRAGMA quick_check`), once per change of the file. It ran under `budget.exempt()`, which
takes its CPU off the call's budget but not its wall time: the call's wall deadline still
stopped it through the progress handler, so on an index large enough for the check to outlast
the budget, `health_check`, `index_state` and `stats` were stopped on every call and the check
was never remembered. It now runs under `budget.aside()`, as a revision's index is built: it
completes once, is remembered, and the call's deadline moves on by the time it took.

A call whose deadline is spent before it starts (budget 0, as tests/store/test_budget.py
does) stands for one whose check outlasts its budget: no timing in the test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import budget
from kenso_git.store import stamp
from kenso_git.store.connection import open_reader
from kenso_git.store.integrity import check_if_changed
from tests.helpers import doc
from tests.helpers import init_repo

DOCS: dict[str, str | bytes] = {
    f"docs/area{i % 5}/page{i}.md": doc(f"Page {i}", f"uniq{i} words of page {i} to index. " * 60)
    for i in range(400)
}


@pytest.fixture
def changed(tmp_path: Path) -> Path:
    """A sound index whose file changed since its writer left it (its stamp no longer fits)."""
    root = init_repo(tmp_path / "repo", DOCS)
    KnowledgeBase.open(root).ingest()
    db = root / ".kenso" / "docs.db"
    st = db.stat()
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert not stamp.matches(db)
    return db


def test_the_page_check_completes_past_the_calls_deadline_and_is_remembered(
    changed: Path,
) -> None:
    conn = open_reader(changed)  # the progress handler of a tool call's reader is installed
    try:
        with budget.call_budget(0):  # spent before it starts: the check outlasts it
            check_if_changed(conn, changed)
    finally:
        conn.close()
    assert stamp.matches(changed)  # recorded: the next writer need not read it either
    seen = stamp.now(changed)
    assert seen is not None
    assert stamp.found(changed, seen) == (True, None)  # the next call costs a stat
