"""Query-time freshness (#16): reads sync what changed first, and never serve vanished text."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenso_git.config import load_settings
from kenso_git.errors import ConfigError
from kenso_git.errors import DocumentNotFoundError
from kenso_git.errors import KensoError
from kenso_git.index import refresh
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.service import Service
from tests.helpers import doc

EXE = [sys.executable, "-m", "kenso_git"]


def _save(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _paths(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.file_path for h in kb.search(query).hits]


def test_search_and_get_doc_see_an_edit_a_create_and_a_delete_at_once(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    assert _paths(kb, "original") == ["docs/a.md"]
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    (root / "docs/c.md").write_text(
        doc("Charlie", "Charlie is rewritten too, with enough words to be indexed.\n"), "utf-8"
    )
    (root / "docs/b.md").unlink()
    assert _paths(kb, "original") == []
    assert sorted(_paths(kb, "rewritten")) == ["docs/a.md", "docs/c.md"]
    assert "rewritten" in kb.get_doc("docs/a.md")["content"]
    with pytest.raises(DocumentNotFoundError):
        kb.get_doc("docs/b.md")
    assert kb.freshness is not None and not kb.freshness.stale


def test_with_query_sync_off_get_doc_refuses_text_the_file_no_longer_has(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(query_sync=False)
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    (root / "docs/b.md").unlink()
    assert _paths(kb, "original") == ["docs/a.md"]  # the search answers from the index...
    with pytest.raises(KensoError, match="changed on disk since it was indexed"):
        kb.get_doc("docs/a.md")  # ...but no stored text of a changed file is served
    with pytest.raises(DocumentNotFoundError):
        kb.get_doc("docs/b.md")


def test_too_many_changes_answer_from_the_index_flagged_stale(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refresh, "MAX_QUERY_SYNC_FILES", 1)
    kb = KnowledgeBase.open(root)
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    _save(root / "docs/b.md", doc("Bravo", "Bravo is rewritten as well, in words.\n"))
    assert _paths(kb, "original") == ["docs/a.md"]
    assert kb.freshness is not None and kb.freshness.stale
    assert "2 docs changed" in (kb.freshness.reason or "")
    state, _ = Service(root).state()
    assert state["stale"] is True and "kenso-git sync" in (state["stale_reason"] or "")


def test_index_state_reports_head_and_an_uncommitted_edit(root: Path) -> None:
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    state, _ = Service(root).state()
    assert state["stale"] is False and state["stale_reason"] is None
    assert state["worktree_differs"] is True
    health, _ = Service(root).health()
    assert health["stale"] is False and health["worktree_differs"] is True
    assert health["as_of"] == state["as_of"] and state["as_of"]


def test_query_sync_setting_and_environment() -> None:
    here = Path.cwd()
    assert load_settings(here, {}).query_sync is True
    assert load_settings(here, {"KENSO_QUERY_SYNC": "0"}).query_sync is False
    assert load_settings(here, {"KENSO_QUERY_SYNC": "true"}).query_sync is True
    with pytest.raises(ConfigError, match="KENSO_QUERY_SYNC must be true or false"):
        load_settings(here, {"KENSO_QUERY_SYNC": "maybe"})


@pytest.mark.parametrize("extra", [["--json"], ["--format", "json"]])
def test_cli_search_sees_an_edit_in_the_same_call_and_no_sync_does_not(
    root: Path, extra: list[str]
) -> None:
    # --json takes the entry's click-free fast path, --format json the click command.
    _save(
        root / "docs/b.md",
        doc("Bravo", "Bravo now mentions zebra crossings, with enough words to be indexed.\n"),
    )

    def found(*args: str) -> bool:
        proc = subprocess.run(
            [*EXE, "search", "zebra", *extra, *args],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        return "docs/b.md" in proc.stdout

    assert not found("--no-sync")
    assert found()


def test_read_snippet_reads_the_file_as_it_is_now_and_knows_when_it_is_gone(root: Path) -> None:
    service = Service(root)
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    snip, _ = service.read_snippet("docs/a.md", "rewritten", 200)
    assert "rewritten" in snip["text"]
    with pytest.raises(KensoError, match=r"no line of docs/a\.md matches"):
        service.read_snippet("docs/a.md", "original wording", 200)
    (root / "docs/a.md").unlink()
    with pytest.raises(KensoError, match=r"no file at docs/a\.md"):
        service.read_snippet("docs/a.md", "", 200)


def test_a_query_does_not_wait_for_another_writer_and_says_the_answer_is_stale(
    root: Path,
) -> None:
    # Another process writing the index holds the lock for as long as it needs (10 minutes
    # for a command): a query-time sync waits a moment, leaves the change to that writer
    # (the rerun mark) and answers from the index as it was, flagged stale.
    from kenso_git.index import lock

    kb = KnowledgeBase.open(root)
    assert _paths(kb, "original") == ["docs/a.md"]
    folder = kb.db_path.parent
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(folder / lock.LOCK_FILE)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
        began = time.monotonic()
        assert _paths(kb, "original") == ["docs/a.md"]  # the index as it was
        assert time.monotonic() - began < 30  # not the writer's 600 s wait
        assert kb.freshness is not None and kb.freshness.stale
        assert (folder / lock.DIRTY_FILE).exists()  # the holder syncs the change for us
    finally:
        holder.kill()
        holder.communicate()


_HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(120)
"""


def test_concurrent_reads_share_checks_and_each_sees_the_edit_before_it(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve calls arriving while a check runs wait for one more check, not twelve (the
    check ran one at a time per call, so 40 hostile calls queued 40 checks in front of a
    normal one), and each still sees an edit saved before it arrived."""
    import threading

    kb = KnowledgeBase.open(root)
    real = refresh.ensure_fresh
    entered = threading.Event()
    release = threading.Event()
    runs: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        runs.append(1)
        if len(runs) == 1:  # hold the first check until every other call is queued
            entered.set()
            assert release.wait(30)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(refresh, "ensure_fresh", counted)
    first = threading.Thread(target=kb.refresh)
    first.start()
    assert entered.wait(30)
    _save(
        root / "docs" / "a.md",
        doc("Alpha", "Alpha now mentions zeppelins, at length and in detail.\n"),
    )
    found: list[set[str]] = []

    def read() -> None:
        found.append({h.file_path for h in kb.search("zeppelins").hits})

    readers = [threading.Thread(target=read) for _ in range(12)]
    for thread in readers:
        thread.start()
    time.sleep(0.2)  # let them queue behind the held check (the count does not depend on it)
    release.set()
    for thread in [first, *readers]:
        thread.join(30)
    assert found == [{"docs/a.md"}] * 12
    assert len(runs) <= 3  # the held check, then one or two for everyone who waited


def test_too_many_changes_wait_for_the_writer_syncing_them(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout past the query's cap while a hook's background sync (or the watcher)
    syncs it: the answer came from the branch just left, flagged stale only in the
    structured copy, for the whole sync (0.45-0.95 s at 250 docs). A query now waits for
    the writer it sees (`QUERY_WRITER_WAIT_S`) and checks again."""
    import threading

    from kenso_git.index import prepare

    monkeypatch.setattr(refresh, "MAX_QUERY_SYNC_FILES", 1)
    writing = threading.Event()
    real = prepare.prepare

    def slow(*args: object, **kwargs: object) -> object:
        writing.set()
        time.sleep(0.4)  # a sync slower than the query's own wait for a writer (0.25 s)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    kb = KnowledgeBase.open(root)
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says lemur instead, in words. " * 3))
    _save(root / "docs/b.md", doc("Bravo", "Bravo says lemur as well, in more words. " * 3))
    monkeypatch.setattr(prepare, "prepare", slow)
    writer = threading.Thread(target=KnowledgeBase.open(root).sync)
    writer.start()
    assert writing.wait(10)
    try:
        assert _paths(kb, "lemur") == ["docs/a.md", "docs/b.md"]
        assert kb.freshness is not None and not kb.freshness.stale
    finally:
        writer.join(10)


def test_too_many_changes_where_no_lock_can_be_taken_answer_flagged_stale(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for a writer takes the lock for a moment: where that cannot be done (a
    read-only folder, a file of that name that is not kenso-git's), the answer is the
    index's, flagged stale, not an error."""
    monkeypatch.setattr(refresh, "MAX_QUERY_SYNC_FILES", 1)
    kb = KnowledgeBase.open(root)
    (kb.db_path.parent / "sync.lock").write_text("not a pid\n", encoding="utf-8")
    _save(root / "docs/a.md", doc("Alpha", "Alpha now says something rewritten instead.\n"))
    _save(root / "docs/b.md", doc("Bravo", "Bravo is rewritten as well, in words.\n"))
    assert _paths(kb, "original") == ["docs/a.md"]
    assert kb.freshness is not None and kb.freshness.stale
