"""Writers of one process take turns (#16): a query's sync beside the watcher's leaves no
rerun mark, so the holder does not sync the whole scope once more before either answers.

A real index over a real git repository; the first writer is held inside its sync by its
own progress callback (called under the lock every 25 files), never by a sleep.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from kenso_git.index.lock import DIRTY_FILE
from kenso_git.index.lock import QUERY_WAIT_S
from kenso_git.index.report import IngestReport
from kenso_git.kb import KnowledgeBase
from tests.helpers import init_repo

WAIT_S = 20.0
EDITED = [f"docs/d{i:02d}.md" for i in range(30)]  # the first writer syncs just these


def _until(done: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not done() and time.monotonic() < deadline:
        time.sleep(0.005)
    return done()


def _text(title: str, words: str) -> str:
    return f"# {title}\n\n{words} is the word of this document, long enough to be indexed.\n"


def _repo(tmp_path: Path) -> KnowledgeBase:
    files = {f"docs/d{i:02d}.md": _text(f"Doc {i}", f"topic{i}") for i in range(30)}
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    return kb


def test_a_query_sync_waits_its_turn_instead_of_asking_for_a_rerun(tmp_path: Path) -> None:
    kb = _repo(tmp_path)
    root = kb.workspace.root
    for i in range(30):  # the first writer's whole sync has 30 files to look at
        (root / f"docs/d{i:02d}.md").write_text(_text(f"Doc {i}", f"edited{i}"), "utf-8")
    inside, release = threading.Event(), threading.Event()
    reports: dict[str, IngestReport | BaseException] = {}

    def hold(_done: int, _total: int) -> None:
        inside.set()
        assert release.wait(WAIT_S)

    def first() -> None:
        reports["first"] = kb.sync(paths=EDITED, progress=hold)

    def query() -> None:
        try:
            reports["query"] = kb.sync(paths=["docs/fresh.md"], hand_off=WAIT_S)
        except BaseException as err:  # reported by the assertions below
            reports["query"] = err

    (root / "docs" / "fresh.md").write_text(_text("Fresh", "zanzibar"), "utf-8")
    writer = threading.Thread(target=first)
    writer.start()
    assert inside.wait(WAIT_S)
    reader = threading.Thread(target=query)
    reader.start()
    dirty = kb.db_path.parent / DIRTY_FILE
    # Either it waits its turn (new) or it left the rerun mark and polls the lock (old).
    assert _until(lambda: getattr(kb, "writers_waiting", 0) == 1 or dirty.exists())
    assert not dirty.exists(), "the query's sync asked the holder for a whole rerun"
    release.set()
    writer.join(WAIT_S)
    reader.join(WAIT_S)
    answer = reports["query"]
    assert isinstance(answer, IngestReport), answer
    assert [r.path for r in answer.results if r.status == "ingested"] == ["docs/fresh.md"]
    assert getattr(kb, "writers_waiting", 0) == 0
    kb.close()


def test_a_query_sync_that_waited_too_long_hands_its_change_to_the_holder(
    tmp_path: Path,
) -> None:
    kb = _repo(tmp_path)
    root = kb.workspace.root
    for i in range(30):
        (root / f"docs/d{i:02d}.md").write_text(_text(f"Doc {i}", f"edited{i}"), "utf-8")
    (root / "docs" / "late.md").write_text(_text("Late", "quixotic"), "utf-8")
    inside, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold(_done: int, _total: int) -> None:
        inside.set()
        assert release.wait(WAIT_S)

    writer = threading.Thread(target=lambda: kb.sync(paths=EDITED, progress=hold))
    writer.start()
    assert inside.wait(WAIT_S)
    try:
        kb.sync(paths=["docs/late.md"], hand_off=QUERY_WAIT_S)
    except BaseException as err:
        errors.append(err)
    assert [type(e).__name__ for e in errors] == ["IndexLockedError"]
    assert (kb.db_path.parent / DIRTY_FILE).exists()  # the holder runs it before it lets go
    release.set()
    writer.join(WAIT_S)
    hits = kb.search_docs("quixotic")
    assert isinstance(hits, list)
    assert [h["file_path"] for h in hits] == ["docs/late.md"]
    kb.close()
