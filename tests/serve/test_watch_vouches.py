"""#32: while a healthy watcher of the same process has synced every event it received, a
query skips its check (one `git status` per call); an edit no event reported is found by the
watcher's whole check on its schedule, and a stalled or stopped watcher vouches for nothing.

Real watcher threads over real repositories; waits are on the watcher's own status, bounded.
"""

from __future__ import annotations

import os
import queue
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenso_git.index import watchseq
from kenso_git.index.watchseq import WatchSeq
from kenso_git.index.watchseq import git_stamp
from kenso_git.kb import KnowledgeBase
from kenso_git.triggers.watcher import SyncNote
from kenso_git.triggers.watcher import Watcher

WAIT_S = 20.0


def _text(word: str) -> str:
    return f"# Page {word}\n\n{word} is the word of this document, long enough to be indexed.\n"


def _paths(kb: KnowledgeBase, word: str) -> list[str]:
    hits = kb.search_docs(word, limit=20)
    assert isinstance(hits, list)
    return [h["file_path"] for h in hits]


class _Started:
    def __init__(self, kb: KnowledgeBase, watcher: Watcher, notes: queue.Queue[SyncNote]):
        self.kb, self.watcher, self.notes = kb, watcher, notes

    def checks(self) -> int:
        """How many query-time checks the knowledge base ran (skipped ones are not)."""
        return self.kb._checks_started


@pytest.fixture
def started(repo: Path) -> Iterator[_Started]:
    (repo / "docs").mkdir(exist_ok=True)
    (repo / "docs" / "a.md").write_text(_text("aardvark"), encoding="utf-8")
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    notes: queue.Queue[SyncNote] = queue.Queue()
    watcher = Watcher(kb, on_sync=notes.put, check_every_s=0.5)
    watcher.start()
    status = watcher.wait_until(lambda st: st.checks >= 2 and st.mode == "events", WAIT_S)
    assert status.ok is True and status.mode == "events", status
    yield _Started(kb, watcher, notes)
    watcher.stop()
    kb.close()


def test_a_query_skips_a_costly_check_while_the_watcher_has_nothing_pending(
    started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watchseq, "VOUCH_AFTER_S", 0.0)  # as if a check cost a monorepo's
    _paths(started.kb, "aardvark")  # one check measures what a check costs
    before = started.checks()
    assert _paths(started.kb, "aardvark") == ["docs/a.md"]
    assert started.checks() == before  # before #32: one git status per query
    assert started.kb.freshness is not None and not started.kb.freshness.stale


def test_a_save_is_seen_at_once_where_a_check_is_cheap(started: _Started) -> None:
    """The watcher's vouch let a query skip its check until the save's events arrived: up
    to ~100 ms (19 answers in a row) from before the save, unflagged, where the check
    itself costs a few milliseconds. It now vouches only where a check is costly."""
    root = started.kb.workspace.root
    for number in range(5):
        word = f"quokka{number}"
        (root / "docs" / "a.md").write_text(_text(word), encoding="utf-8")
        assert _paths(started.kb, word) == ["docs/a.md"], number  # asked at once


def test_an_edit_no_event_reported_is_found_by_the_scheduled_check(
    started: _Started, tmp_path: Path
) -> None:
    # A write through a hard link outside the watched tree changes the doc's text, and
    # inotify reports it on the other folder only: no event reaches the watcher.
    outside = tmp_path / "outside"
    outside.mkdir()
    os.link(started.kb.workspace.root / "docs" / "a.md", outside / "same.md")
    with (outside / "same.md").open("a", encoding="utf-8") as handle:
        handle.write("\nzeppelin joins the page through the other name.\n")
    while True:  # the watcher's whole check on its schedule syncs it
        note = started.notes.get(timeout=WAIT_S)
        if note.reason == "schedule" and note.changed:
            break
    assert _paths(started.kb, "zeppelin") == ["docs/a.md"]


def test_a_stopped_watcher_vouches_for_nothing(started: _Started) -> None:
    started.watcher.stop()
    before = started.checks()
    (started.kb.workspace.root / "docs" / "b.md").write_text(_text("bison"), encoding="utf-8")
    assert _paths(started.kb, "bison") == ["docs/b.md"]  # the query's own check synced it
    assert started.checks() == before + 1


def test_a_received_batch_is_pending_until_synced_and_a_check_goes_stale() -> None:
    seq = WatchSeq(vouch_s=10.0)
    assert not seq.vouches(0.0)  # never checked
    seq.watching(True)
    seq.checked(100.0, seq.current())
    assert seq.vouches(101.0)
    number = seq.received()
    assert not seq.vouches(101.0)  # an event not yet in the index
    seq.synced(number)
    assert seq.vouches(101.0)
    assert not seq.vouches(111.0)  # the schedule slipped: the watcher may be stalled
    late = seq.received()
    seq.checked(105.0, late - 1)  # a check that began before the batch arrived
    assert not seq.vouches(106.0)
    seq.checked(107.0, late)
    assert seq.vouches(108.0)
    seq.watching(False)  # failed, polling or stopped
    assert not seq.vouches(108.0)


def test_a_query_right_after_a_branch_switch_runs_its_own_check(started: _Started) -> None:
    """With the watcher vouching, a query asked before the checkout's events reached it
    answered from the branch just left (10 of 10 tries at ~4 ms): git's index file and HEAD
    changed, so the watcher no longer vouches and the query checks for itself."""
    root = started.kb.workspace.root
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    subprocess.run([*git, "checkout", "-qb", "feature"], check=True)
    (root / "docs" / "a.md").write_text(_text("lemur"), encoding="utf-8")
    subprocess.run([*git, "commit", "-qam", "lemur"], check=True)
    started.watcher.wait_until(lambda st: st.checks >= 3, WAIT_S)
    for branch, word in (("main", "aardvark"), ("feature", "lemur"), ("main", "aardvark")):
        before = started.checks()
        subprocess.run([*git, "checkout", "-q", branch], check=True)
        assert _paths(started.kb, word) == ["docs/a.md"], branch  # asked at once
        assert started.checks() == before + 1  # the query's own check, not the vouch


def test_the_stamp_follows_git_s_index_and_head(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    stamp = git_stamp(git_dir)
    empty = stamp()
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    seq = WatchSeq(vouch_s=10.0, stamp=stamp)
    seq.watching(True)
    seq.checked(100.0, seq.current(), seq.stamp())
    assert seq.vouches(101.0) and seq.stamp() != empty
    (git_dir / "index").write_bytes(b"DIRC")
    assert not seq.vouches(101.0)  # a git operation since the check began
    seq.checked(102.0, seq.current(), seq.stamp())
    assert seq.vouches(103.0)
    assert git_stamp(None)() is None


def test_a_checkout_past_the_query_cap_waits_for_the_watcher(
    started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout changing more docs than a query syncs: a call made before the watcher's
    events arrived found no writer at work and answered from the branch just left (flagged
    stale); it now gives the watcher a moment to start, then waits for its sync."""
    from kenso_git.index import refresh

    root = started.kb.workspace.root
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    subprocess.run([*git, "checkout", "-qb", "feature"], check=True)
    for name, word in (("b", "okapi"), ("c", "quagga"), ("d", "tapir")):
        (root / "docs" / f"{name}.md").write_text(_text(word), encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "okapis"], check=True)
    started.watcher.wait_until(lambda st: st.checks >= 3, WAIT_S)
    monkeypatch.setattr(refresh, "MAX_QUERY_SYNC_FILES", 1)
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    assert _paths(started.kb, "okapi") == []  # asked at once: the docs are gone...
    assert started.kb.freshness is not None and not started.kb.freshness.stale
    subprocess.run([*git, "checkout", "-q", "feature"], check=True)
    assert _paths(started.kb, "quagga") == ["docs/c.md"]  # ...and back
    assert started.kb.freshness is not None and not started.kb.freshness.stale
