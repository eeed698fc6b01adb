"""A call waits for another thread's freshness check no longer than its budget (r50 #2).

Concurrent calls of one server share freshness checks (`Writes._refresh`): a call waits for
the check running in another thread, then for one of its own. That wait had no limit: with
another process holding the index's write lock while more docs changed than a query syncs,
a check waits 5 s for that writer (`QUERY_WRITER_WAIT_S`), and a call under a 1 s budget
waited all of it. Now it waits no longer than its budget can spare, then answers from the
index as it is, flagged stale with the reason.

Real threads of one process sharing one `KnowledgeBase`, as a server's calls do, and a real
second process holding the lock (`tests/serve/test_lock_busy_reads.py`)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store.budget import call_budget
from tests.helpers import doc
from tests.helpers import init_repo
from tests.serve.test_lock_busy_reads import lock_held

HANG_GUARD_S = 60
ANSWERED_WITHIN_S = 4.0  # the budget is 1 s; before, the other check's 5 s writer wait
TOO_MANY = 250  # more changed docs than a query syncs (`MAX_QUERY_SYNC_FILES`, 200)


@pytest.mark.timeout(HANG_GUARD_S)
def test_a_call_waits_for_another_threads_check_no_longer_than_its_budget(
    tmp_path: Path,
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha words. " * 20)})
    KnowledgeBase.open(root).ingest()
    for i in range(TOO_MANY):
        (root / "docs" / f"new{i}.md").write_text(doc(f"New {i}", "wombat words. " * 8))
    kb = KnowledgeBase.open(root)
    with lock_held(root) as holder:
        # a check with no budget (as the stdio server's start-up check), waiting for the holder
        other = threading.Thread(target=kb.refresh, daemon=True)
        other.start()
        deadline = time.monotonic() + HANG_GUARD_S
        while kb._checks_started == kb._checks_done:  # until it runs (no public signal)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        started = time.monotonic()
        with call_budget(1):
            hits = kb.search_docs("alpha")
        took = time.monotonic() - started
        freshness = kb.freshness  # before the other check ends and says its own verdict
        assert holder.poll() is None  # answered while the other writer held the lock
        assert other.is_alive()  # ... and while the other check still waited for it
    other.join(HANG_GUARD_S)
    assert took < ANSWERED_WITHIN_S, took
    assert [hit["file_path"] for hit in hits] == ["docs/a.md"]  # type: ignore[index]
    assert freshness is not None and freshness.stale
    assert "another freshness check of the index" in (freshness.reason or "")
