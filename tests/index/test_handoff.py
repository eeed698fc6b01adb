"""A hand-off sync (a query's or the watcher's) whose request the lock holder served before
it got the lock returns a report, not IndexError (found by tests/e2e/test_soak.py, #14)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from kenso_git.index.lock import DIRTY_FILE
from kenso_git.index.lock import coalesced
from kenso_git.index.report import IngestReport
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

WAIT_S = 30.0


def test_a_hand_off_served_by_the_holder_returns_a_report(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {f"docs/d{i}.md": doc(f"Doc {i}") for i in range(3)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    folder = kb.db_path.parent
    inside, release = threading.Event(), threading.Event()
    reruns: list[int] = []

    def holder_job(round_: int) -> None:  # a command's sync, then the rerun a mark asks for
        if round_ == 0:
            inside.set()
            assert release.wait(WAIT_S)
        else:
            reruns.append(round_)
            other = KnowledgeBase.open(root)
            try:
                other.sync()
            finally:
                other.close()

    holder = threading.Thread(
        target=lambda: coalesced(folder, holder_job, wait=WAIT_S, own_run=True), daemon=True
    )
    holder.start()
    assert inside.wait(WAIT_S)
    write(root, {"docs/d1.md": doc("Doc 1", "Edited while a command held the lock. " * 5)})
    got: list[object] = []

    def hand_off() -> None:
        try:
            got.append(kb.sync(hand_off=WAIT_S))
        except Exception as err:  # the failure under test
            got.append(err)

    asker = threading.Thread(target=hand_off, daemon=True)
    asker.start()
    deadline = time.monotonic() + WAIT_S  # the asker leaves its mark, then waits for the lock
    while not (folder / DIRTY_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert (folder / DIRTY_FILE).exists()
    release.set()  # the holder consumes the mark and syncs for the asker, then lets go
    holder.join(WAIT_S)
    asker.join(WAIT_S)
    assert reruns == [1]
    assert len(got) == 1 and isinstance(got[0], IngestReport), got  # was IndexError
    assert {h.file_path for h in kb.search("command held").hits} == {"docs/d1.md"}
    kb.close()
