"""Where the query-time check's watch says it stands (`QuietWatch.report`,
`KnowledgeBase.query_watch`; index/quiet.py): armed, arming, off or aside, and why."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from kenso_git.index import quiet
from kenso_git.kb import KnowledgeBase
from tests.index.test_quiet import _armed
from tests.index.test_quiet import _paths
from tests.index.test_quiet import _warm
from tests.index.test_quiet_rearm import rearmed

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


@linux_only
def test_the_report_follows_the_watch_from_first_check_to_armed(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    assert kb.query_watch() == quiet.WatchReport("arming", quiet.NOT_YET, 0)
    _paths(kb, "alpha")
    assert kb.query_watch() == quiet.WatchReport("arming", quiet.NOT_YET, 0)
    watch = _warm(kb)
    report = kb.query_watch()
    assert (report.state, report.reason) == ("armed", None)
    assert report.folders == 2  # the root and docs/
    (root / "docs" / "pyproject.toml").write_text("", encoding="utf-8")  # no setting
    assert kb.query_watch() == report
    (root / "docs" / "new").mkdir()
    assert kb.query_watch() == quiet.WatchReport("arming", quiet.WALK_AGAIN, 0)
    _paths(kb, "alpha")
    rearmed(watch, 2)
    assert kb.query_watch() == quiet.WatchReport("armed", None, 3)
    # a one-shot caller (a CLI command) is told its own process never arms one
    assert KnowledgeBase.open(root).query_watch(one_shot=True) == quiet.WatchReport(
        "off", quiet.ONE_SHOT, 0
    )


@linux_only
def test_a_lost_queue_is_reported_until_it_is_armed_again(root: Path) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text("ascii"))
    if limit > 40_000:
        pytest.skip("too many events to queue before it overflows")
    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    flood = root / "docs"  # a watched folder: a folder made now is not watched yet
    for number in range(limit // 2 + 10):  # each: created and closed after a write
        (flood / f"f{number}.txt").write_bytes(b"")
    assert watch.report() == quiet.WatchReport("arming", quiet.OVERFLOW, 0)
    assert _paths(kb, "alpha") == ["docs/a.md"]
    rearmed(watch, 2)
    assert watch.report().state == "armed"


@linux_only
def test_a_hard_linked_doc_is_reported_without_its_path(root: Path, tmp_path: Path) -> None:
    os.link(root / "docs" / "b.md", tmp_path / "other-name.md")
    kb = KnowledgeBase.open(root)
    _armed(kb)
    report = kb.query_watch()
    assert report == quiet.WatchReport("aside", report.reason, 0)
    assert report.reason is not None and "hard-linked" in report.reason
    assert "b.md" not in report.reason and str(tmp_path) not in report.reason


@pytest.mark.parametrize(
    ("variable", "said"), [("KENSO_QUERY_WATCH", "OFF_SETTING"), ("KENSO_QUERY_SYNC", "OFF_SYNC")]
)
def test_settings_that_turn_it_off_are_named(
    root: Path, monkeypatch: pytest.MonkeyPatch, variable: str, said: str
) -> None:
    reason = getattr(quiet, said)
    monkeypatch.setenv(variable, "0")
    kb = KnowledgeBase.open(root)
    for _ in range(3):
        _paths(kb, "alpha")
    assert kb.query_watch() == quiet.WatchReport("off", reason, 0)
    assert kb.query_watch(one_shot=True) == quiet.WatchReport("off", reason, 0)


@linux_only
def test_too_many_folders_are_reported_with_the_limit(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quiet, "MAX_FOLDERS", 1)  # the root alone: docs/ is one too many
    kb = KnowledgeBase.open(root)
    _armed(kb)
    report = kb.query_watch()
    assert report.state == "aside" and report.folders == 0
    assert report.reason is not None and report.reason.startswith("more than 1 folders to watch")
