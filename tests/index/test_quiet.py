"""The query-time check skipped while nothing changed (index/quiet.py): every save that
returned before a query is in its answer, whatever changed and however fast."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from kenso_git.index.quiet import QuietWatch
from kenso_git.kb import KnowledgeBase
from kenso_git.repo import mounts
from tests.helpers import doc
from tests.helpers import git

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def _paths(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.file_path for h in kb.search(query).hits]


def _watch(kb: KnowledgeBase) -> QuietWatch:
    watch = kb._quiet
    assert watch is not None, "the second check makes the watch"
    return watch


def _page(word: str) -> str:
    return doc("Page", f"This page talks about {word} at length, in enough words to index.\n")


def _armed(kb: KnowledgeBase) -> QuietWatch:
    """The watch once its first arming (a thread started by the second check) ended."""
    for _ in range(2):
        _paths(kb, "alpha")
    watch = _watch(kb)
    assert watch.wait_armed(60)
    return watch


def _warm(kb: KnowledgeBase) -> QuietWatch:
    watch = _armed(kb)
    assert watch.armed == 1
    _paths(kb, "alpha")  # the first check on the armed queue: trusted from then on
    before = watch.vouched
    assert _paths(kb, "alpha") == ["docs/a.md"]
    assert watch.vouched == before + 1, "a query with nothing changed runs no check"
    return watch


@linux_only
def test_every_save_is_seen_by_the_next_query_with_no_wait(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    target = root / "docs" / "a.md"
    for number in range(40):
        word = f"saved{number}word"
        if number % 2:
            target.write_text(_page(word), encoding="utf-8")  # in place
        else:
            temp = target.with_name("a.md.tmp")
            temp.write_text(_page(word), encoding="utf-8")
            os.replace(temp, target)  # an editor's atomic save
        assert _paths(kb, word) == ["docs/a.md"], number
        assert _paths(kb, f"saved{number - 1}word") == [], number
    assert watch.vouched > 40  # each second query of a round was vouched for


@linux_only
def test_new_moved_and_deleted_folders_are_seen(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    _warm(kb)
    (root / "docs" / "new").mkdir()
    (root / "docs" / "new" / "x.md").write_text(_page("firstnewword"), encoding="utf-8")
    assert _paths(kb, "firstnewword") == ["docs/new/x.md"]
    # a file in the new folder after the query: the folder is watched now
    (root / "docs" / "new" / "y.md").write_text(_page("secondnewword"), encoding="utf-8")
    assert _paths(kb, "secondnewword") == ["docs/new/y.md"]
    os.rename(root / "docs" / "new", root / "moved")
    assert _paths(kb, "secondnewword") == ["moved/y.md"]
    (root / "moved" / "deeper").mkdir()
    (root / "moved" / "deeper" / "z.md").write_text(_page("thirdnewword"), encoding="utf-8")
    assert _paths(kb, "thirdnewword") == ["moved/deeper/z.md"]
    shutil.rmtree(root / "moved")
    assert _paths(kb, "secondnewword") == []
    assert _paths(kb, "thirdnewword") == []


@linux_only
def test_ignore_rules_inside_and_outside_the_work_tree(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    (root / ".gitignore").write_text("hidden/\n", encoding="utf-8")
    (root / "hidden").mkdir()
    (root / "hidden" / "h.md").write_text(_page("hiddenword"), encoding="utf-8")
    watch = _warm(kb)
    assert _paths(kb, "hiddenword") == []
    (root / ".gitignore").write_text("", encoding="utf-8")
    assert _paths(kb, "hiddenword") == ["hidden/h.md"]
    # the folder was not watched while ignored: it is now
    (root / "hidden" / "i.md").write_text(_page("laterword"), encoding="utf-8")
    assert _paths(kb, "laterword") == ["hidden/i.md"]
    # git's own exclude file lies outside the work tree: no event, its stat data tells
    before = watch.vouched
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("docs/b.md\n", encoding="utf-8")
    assert _paths(kb, "bravo") == []
    assert watch.vouched == before


@linux_only
def test_a_commit_that_changes_no_file_is_seen(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    _warm(kb)
    git(root, "commit", "-q", "--allow-empty", "-m", "empty")
    head = git(root, "rev-parse", "HEAD").strip()
    _paths(kb, "alpha")
    assert kb.freshness is not None and kb.freshness.head == head


@linux_only
def test_another_writer_of_the_index_makes_the_next_query_check(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    KnowledgeBase.open(root).ingest()  # another connection commits to the index
    before = watch.vouched
    assert _paths(kb, "alpha") == ["docs/a.md"]
    assert watch.vouched == before
    assert _paths(kb, "alpha") == ["docs/a.md"]
    assert watch.vouched == before + 1


@linux_only
def test_an_edit_of_a_symlinked_docs_target_is_seen(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    (root / "other").mkdir()
    target = root / "other" / "real.md"
    target.write_text(_page("linkedword"), encoding="utf-8")
    os.symlink("../other/real.md", root / "docs" / "linked.md")
    _warm(kb)
    assert sorted(_paths(kb, "linkedword")) == ["docs/linked.md", "other/real.md"]
    target.write_text(_page("retargetedword"), encoding="utf-8")
    assert sorted(_paths(kb, "retargetedword")) == ["docs/linked.md", "other/real.md"]
    os.remove(root / "docs" / "linked.md")
    os.symlink("a.md", root / "docs" / "linked.md")  # the link itself changes
    assert sorted(_paths(kb, "retargetedword")) == ["other/real.md"]


@linux_only
def test_a_nested_repository_that_stops_being_one(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    (root / "sub" / "deep").mkdir(parents=True)
    git(root / "sub", "init", "-q")
    (root / "sub" / "deep" / "n.md").write_text(_page("nestedword"), encoding="utf-8")
    _warm(kb)
    assert _paths(kb, "nestedword") == []
    shutil.rmtree(root / "sub" / ".git")
    assert _paths(kb, "nestedword") == ["sub/deep/n.md"]
    # its folders were not watched while it was another repository's: they are now
    (root / "sub" / "deep" / "m.md").write_text(_page("deepword"), encoding="utf-8")
    assert _paths(kb, "deepword") == ["sub/deep/m.md"]


@linux_only
def test_outside_git_too(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text(_page("alpha"), "utf-8")
    KnowledgeBase.open(root).ingest()
    kb = KnowledgeBase.open(root)
    _warm(kb)
    (root / "docs" / "a.md").write_text(_page("plainword"), encoding="utf-8")
    assert _paths(kb, "plainword") == ["docs/a.md"]


def test_mountinfo_tells_local_from_network_file_systems() -> None:
    line = "36 35 98:0 / {point} rw,noatime master:1 - {kind} /dev/x rw\n"
    ext4_root = line.format(point="/", kind="ext4")
    assert mounts.all_local("/home/me/repo", ext4_root)
    assert not mounts.all_local("/home/me/repo", line.format(point="/", kind="nfs4"))
    # a network mount under the tree, or holding it
    below = ext4_root + line.format(point="/home/me/repo/vendor", kind="fuse.sshfs")
    assert not mounts.all_local("/home/me/repo", below)
    holding = ext4_root + line.format(point="/home/me", kind="cifs")
    assert not mounts.all_local("/home/me/repo", holding)
    # a mount beside the tree does not count; a name with a space is unescaped
    beside = ext4_root + line.format(point="/home/me/repo\\040two", kind="nfs")
    assert mounts.all_local("/home/me/repo", beside)
    assert mounts.parse(beside)[1] == ("/home/me/repo two", "nfs")
    # mounts stacked on one point: the last one is the one seen
    stacked = (
        ext4_root
        + line.format(point="/home", kind="nfs")
        + line.format(point="/home", kind="tmpfs")
    )
    assert mounts.all_local("/home/me/repo", stacked)
    assert not mounts.all_local("/home/me/repo", "")


def test_query_watch_off_checks_every_query(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENSO_QUERY_WATCH", "0")
    kb = KnowledgeBase.open(root)
    for _ in range(4):
        assert _paths(kb, "alpha") == ["docs/a.md"]
    assert kb._quiet is None


@linux_only
def test_a_save_while_the_check_beside_the_read_runs_is_never_vouched_for(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search starts `git status` and reads while it runs (`fresh_read`): a save after
    git looked but before the check's end must leave the next query checking again, not
    settle the index as fresh without it."""
    import time

    kb = KnowledgeBase.open(root)
    time.sleep(1.2)  # the docs were written over a second before: the mark lists none
    kb.sync()
    watch = _warm(kb)
    target = root / "docs" / "a.md"
    read = kb.read
    saved: list[bool] = []

    def read_then_save(fn):  # type: ignore[no-untyped-def]
        result = read(fn)
        if not saved:
            time.sleep(0.5)  # git's status of two docs has long ended
            target.write_text(_page("duringword"), encoding="utf-8")
            saved.append(True)
        return result

    monkeypatch.setattr(kb, "read", read_then_save)
    # this search checks beside its read
    monkeypatch.setattr(watch, "vouches", lambda _settings: None)
    kb.search("alpha")
    assert saved
    monkeypatch.undo()
    assert _paths(kb, "duringword") == ["docs/a.md"]


@linux_only
def test_a_hard_linked_doc_makes_the_watch_stand_aside(root: Path, tmp_path: Path) -> None:
    """A doc written through its other name reports no event in the work tree."""
    other = tmp_path / "other-name.md"
    os.link(root / "docs" / "b.md", other)
    kb = KnowledgeBase.open(root)
    watch = _armed(kb)
    _paths(kb, "bravo")
    assert watch.armed == 0 and watch.vouched == 0
    other.write_text(_page("throughlinkword"), encoding="utf-8")
    assert _paths(kb, "throughlinkword") == ["docs/b.md"]


@linux_only
def test_a_check_is_trusted_for_a_minute_at_most(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from kenso_git.index import quiet

    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    now = time.monotonic()
    monkeypatch.setattr(quiet.time, "monotonic", lambda: now + quiet.MAX_TRUST_S + 1)
    before = watch.vouched
    _paths(kb, "alpha")
    assert watch.vouched == before  # checked again
    _paths(kb, "alpha")
    assert watch.vouched == before + 1  # that check is trusted from its own time


@linux_only
def test_new_settings_walk_the_folders_they_no_longer_exclude(root: Path) -> None:
    """A server re-reads its settings after an edit (`Service.reload_rules`): the folders
    the old `exclude` hid are watched from then on."""
    (root / "drafts").mkdir()
    (root / "drafts" / "d.md").write_text(_page("draftword"), encoding="utf-8")
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(exclude=("drafts/",))
    kb.sync()
    _warm(kb)
    assert _paths(kb, "draftword") == []
    kb.settings = kb.settings._replace(exclude=())
    assert _paths(kb, "draftword") == ["drafts/d.md"]
    (root / "drafts" / "e.md").write_text(_page("laterdraftword"), encoding="utf-8")
    assert _paths(kb, "laterdraftword") == ["drafts/e.md"]
