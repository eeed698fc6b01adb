"""The watcher (#16): saves, deletes, folder moves and rule edits reach the index unasked.

Each test runs a real `Watcher` thread (inotify through watchfiles, or the stat-polling
fallback) over a real git repository and index, with the query-time sync off, so that only
the watcher can have brought a change in. Waits are on the watcher's own sync notes,
bounded.
"""

from __future__ import annotations

import os
import queue
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.triggers.watcher import SyncNote
from kenso_git.triggers.watcher import Watcher
from tests.helpers import git

WAIT_S = 20.0


class Running:
    """A started watcher and the notes of the syncs it ran."""

    def __init__(self, kb: KnowledgeBase, **options: object) -> None:
        self.kb = kb
        self.notes: queue.Queue[SyncNote] = queue.Queue()
        self.rules = 0
        self.watcher = Watcher(kb, on_sync=self.notes.put, on_rules=self._rules, **options)  # type: ignore[arg-type]

    def _rules(self) -> None:
        self.rules += 1
        self.kb.settings = self.kb.settings._replace(query_sync=False)

    def until(self, found: object, query: str, *, present: bool = True) -> list[str]:
        """Wait for syncs until `found` is (or is no longer) among the hits for `query`."""
        paths = self.paths(query)
        while (found in paths) != present:
            self.notes.get(timeout=WAIT_S)  # raises queue.Empty: the change never arrived
            paths = self.paths(query)
        return paths

    def paths(self, query: str) -> list[str]:
        hits = self.kb.search_docs(query, limit=20)
        assert isinstance(hits, list)
        return [h["file_path"] for h in hits]


def _kb(root: Path) -> KnowledgeBase:
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)  # only the watcher may sync
    return kb


def _text(title: str, words: str) -> str:
    return f"# {title}\n\n{words} is the word of this document, long enough to be indexed.\n"


def _save(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


@pytest.fixture(params=["events", "polling"])
def running(request: pytest.FixtureRequest, repo: Path) -> Iterator[Running]:
    run = Running(_kb(repo), poll_only=request.param == "polling", poll_s=0.2)
    run.watcher.start()
    yield run
    run.watcher.stop()
    run.kb.close()


def _ready(run: Running) -> None:
    """The watcher's first (catch-up) check is done and it watches: with events, once its
    watches are armed it checks once more (a change made before that fired no event)."""
    checks = 1 if run.watcher.poll_only else 2
    status = run.watcher.wait_until(
        lambda st: st.checks >= checks and st.mode != "starting", WAIT_S
    )
    assert status.checks >= 1 and status.ok is True, status


def test_an_editor_save_is_searchable_without_a_query_sync(running: Running) -> None:
    _ready(running)
    root = running.kb.workspace.root
    _save(root / "docs" / "billing.md", _text("Billing", "zeppelin"))
    assert running.until("docs/billing.md", "zeppelin") == ["docs/billing.md"]
    assert running.watcher.status().ok is True


def test_create_delete_and_rename_reach_the_index(running: Running) -> None:
    _ready(running)
    root = running.kb.workspace.root
    (root / "docs" / "fresh.md").write_text(_text("Fresh", "quokka"), "utf-8")
    running.until("docs/fresh.md", "quokka")
    (root / "docs" / "fresh.md").rename(root / "docs" / "moved.md")
    assert running.until("docs/fresh.md", "quokka", present=False) in ([], ["docs/moved.md"])
    running.until("docs/moved.md", "quokka")
    (root / "docs" / "moved.md").unlink()
    assert running.until("docs/moved.md", "quokka", present=False) == []


def test_a_folder_moved_out_of_the_tree_is_forgotten(running: Running, tmp_path: Path) -> None:
    _ready(running)
    root = running.kb.workspace.root
    (root / "docs" / "sub").mkdir()
    (root / "docs" / "sub" / "deep.md").write_text(_text("Deep", "narwhal"), "utf-8")
    running.until("docs/sub/deep.md", "narwhal")
    shutil.move(root / "docs" / "sub", tmp_path / "elsewhere")  # one event, for the folder
    assert running.until("docs/sub/deep.md", "narwhal", present=False) == []


def test_an_ignore_rule_edit_rereads_the_rules(running: Running) -> None:
    _ready(running)
    root = running.kb.workspace.root
    assert "docs/billing.md" in running.paths("retries")
    with (root / ".gitignore").open("a", encoding="utf-8") as handle:
        handle.write("docs/billing.md\n")
    running.until("docs/billing.md", "retries", present=False)
    # the owner was told to rebuild its scope gate (the fallback sees the file's stat data)
    deadline = time.monotonic() + WAIT_S
    while running.rules < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running.rules >= 1


def test_a_branch_switch_moves_as_of(repo: Path) -> None:
    run = Running(_kb(repo))
    run.watcher.start()
    try:
        _ready(run)
        git(repo, "checkout", "-q", "-b", "topic")
        (repo / "docs" / "topic.md").write_text(_text("Topic", "okapi"), "utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "topic")
        run.until("docs/topic.md", "okapi")
        git(repo, "checkout", "-q", "-")
        run.until("docs/topic.md", "okapi", present=False)
        head = git(repo, "rev-parse", "HEAD").strip()
        while run.kb.state(check_stale=False).as_of != head:
            run.notes.get(timeout=WAIT_S)
    finally:
        run.watcher.stop()


def test_a_replaced_index_is_followed_and_a_broken_one_reported(repo: Path) -> None:
    run = Running(_kb(repo))
    run.watcher.start()
    try:
        _ready(run)
        db = run.kb.db_path
        # A broken index: the watcher reports it and lives on.
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        db.write_bytes(b"this is not a database" * 100)
        _save(repo / "docs" / "billing.md", _text("Billing", "capybara"))
        status = run.watcher.wait_until(lambda st: st.ok is False, WAIT_S)
        assert status.reason and "corrupt" in status.reason, status
        # A new index in its place: the next save lands in it, and the watcher is ok again.
        KnowledgeBase.open(repo).ingest(rebuild=True)
        _save(repo / "docs" / "billing.md", _text("Billing", "wombat"))
        run.until("docs/billing.md", "wombat")
        assert run.watcher.status().ok is True
    finally:
        run.watcher.stop()


def test_the_watcher_never_creates_an_index(tmp_path: Path) -> None:
    from tests.helpers import init_repo

    root = init_repo(tmp_path / "bare", {"docs/a.md": _text("A", "first")})
    kb = _kb(root)
    run = Running(kb, poll_only=True, poll_s=0.05)
    run.watcher.start()
    try:
        _ready(run)
        _save(root / "docs" / "a.md", _text("A", "second"))
        checks = run.watcher.status().checks
        status = run.watcher.wait_until(lambda st: st.checks >= checks + 3, WAIT_S)
        assert status.checks >= checks + 3, status  # three polling rounds after the save
        assert not kb.db_path.exists()
        assert run.watcher.status().ok is True
    finally:
        run.watcher.stop()


def test_a_command_sync_in_another_thread_waits_for_the_watchers_write(tmp_path: Path) -> None:
    """The lock is re-entrant for the thread that holds it only: while the watcher's thread
    writes, a `get_doc` re-sync (a command-style run) in a tool thread must wait, not write
    beside it."""
    import threading

    from kenso_git.errors import IndexLockedError
    from kenso_git.index.lock import coalesced

    folder = tmp_path / "kenso"
    inside, release = threading.Event(), threading.Event()
    running: list[str] = []

    def watcher_job(_round: int) -> None:
        running.append("watcher")
        inside.set()
        assert release.wait(WAIT_S)
        running.remove("watcher")

    holder = threading.Thread(
        target=lambda: coalesced(folder, watcher_job, wait=1.0, own_run=False), daemon=True
    )
    holder.start()
    assert inside.wait(WAIT_S)
    beside: list[list[str]] = []
    try:
        with pytest.raises(IndexLockedError):  # it waited its 0.2 s, then gave up
            coalesced(folder, lambda _r: beside.append(list(running)), wait=0.2, own_run=True)
    finally:
        release.set()
        holder.join(WAIT_S)
    assert beside == []


def test_a_whole_scope_check_asks_git_instead_of_walking(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poll, a HEAD move or a folder event asks what the query-time check asks: one
    `git status` against the last sync's mark, not a walk of every folder."""
    kb = _kb(repo)
    kb.sync()  # leaves the mark
    listings = {"n": 0}
    real = os.scandir

    def counting(*args: object, **kwargs: object) -> object:
        listings["n"] += 1
        return real(*args, **kwargs)  # type: ignore[call-overload]

    run = Running(kb, poll_only=True)
    monkeypatch.setattr(os, "scandir", counting)
    run.watcher._full("poll")
    assert listings["n"] == 0  # before: a walk of the tree
    _save(repo / "docs" / "walkless.md", _text("Walkless", "pangolin"))
    run.watcher._full("poll")
    assert run.paths("pangolin") == ["docs/walkless.md"]


def test_a_commit_made_while_the_watch_is_being_armed_is_still_recorded(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit changes no doc: its only events are in the git dir. One made after the
    watcher's first catch-up but before watchfiles armed its watches fired nothing the
    watcher saw, and the index kept the old HEAD until some later event (found by
    test_watcher_property.py under load)."""
    import threading

    run = Running(_kb(repo))
    catch_up = Watcher._catch_up
    committed = threading.Event()

    def then_commit(self: Watcher) -> None:
        catch_up(self)
        git(repo, "commit", "-q", "--allow-empty", "-m", "in the gap")  # not armed yet
        committed.set()

    monkeypatch.setattr(Watcher, "_catch_up", then_commit)
    run.watcher.start()
    try:
        assert committed.wait(WAIT_S)
        head = git(repo, "rev-parse", "HEAD").strip()
        status = run.watcher.wait_until(
            lambda st: run.kb.state(check_stale=False).as_of == head, WAIT_S
        )
        assert run.kb.state(check_stale=False).as_of == head, status
    finally:
        run.watcher.stop()
