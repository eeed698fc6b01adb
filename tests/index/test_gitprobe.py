"""Walk-free sync (#16): one `git status` names what changed; the index equals a fresh ingest."""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenso_git.index import gitprobe
from kenso_git.kb import KnowledgeBase
from tests.helpers import branched_repo
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo

DOCS = [f"docs/{name}.md" for name in ("a", "b", "c", "d", "e")] + ["notes/f.md", "g.md"]
# What a check costs a folder holding docs at most (repo.foreign.MarkCache): a stat, and the
# three markers of a nested repository or an environment when the folder changed lately.
FOLDER_LOOK = 4


def _files(db: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return sorted(conn.execute("SELECT path, blob_id, status FROM files"))
    finally:
        conn.close()


def _fresh(root: Path, tmp: Path) -> list[tuple[str, str, str]]:
    db = tmp / "fresh.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    KnowledgeBase.open(root, db=str(db)).ingest()
    return _files(db)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {path: doc(path.split("/")[-1][:-3].upper()) for path in DOCS}
    change = {
        "docs/a.md": doc("A", "The other branch rewrote this document fully.\n"),
        "docs/b.md": None,
        "docs/h.md": doc("H", "Only the other branch has this document here.\n"),
    }
    return branched_repo(tmp_path / "repo", files, "other", change)


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the stat and directory listings this thread makes (git's own are not ours,
    nor those of a thread arming the quiet watch: index/quiet.py)."""
    import threading

    calls = {"stat": 0, "lstat": 0, "scandir": 0}
    me = threading.get_ident()

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == me:
                calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(os, "stat", counting("stat", os.stat))
    monkeypatch.setattr(os, "scandir", counting("scandir", os.scandir))
    monkeypatch.setattr(os, "lstat", counting("lstat", os.lstat))
    return calls


def test_a_no_change_sync_and_check_look_at_no_unchanged_doc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"docs/{i // 20}/d{i}.md": doc(f"Doc {i}") for i in range(200)}
    root = init_repo(tmp_path / "big", files)
    # the check itself: the inotify watch that skips it (index/quiet.py) walks once to arm
    monkeypatch.setenv("KENSO_QUERY_WATCH", "0")
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.sync()  # the first sync after an ingest may walk; it leaves the mark
    calls = _count_calls(monkeypatch)
    report = kb.sync()
    kb.search("doc")
    assert calls["scandir"] == 0  # no walk of the work tree...
    # ...and no stat per doc (200 of them; the index file is stat-ed), one per folder (11),
    # and per check (2) one of `.git/shallow`, which a deepening fetch changes
    assert calls["stat"] < 25 + 11 + 2
    assert report.count("unchanged") == 200 and report.total == 200
    (root / "docs/3/d61.md").write_text(
        doc("Doc 61", "Sixty-one now mentions zebras, with words enough to be indexed.\n")
    )
    assert [h.file_path for h in kb.search("zebras").hits] == ["docs/3/d61.md"]
    assert calls["scandir"] == 0


def test_a_check_of_uncommitted_docs_costs_one_stat_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new repository whose docs are not committed yet: git lists every doc, and a check
    stats each once against the files table instead of vetting it again (ancestor folders,
    symlink target, ignore rules): that cost 0.23 s per read on the docs corpus."""
    root = tmp_path / "fresh"
    for i in range(200):
        path = root / f"docs/{i // 20}/sub/d{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc(f"Doc {i}"), encoding="utf-8")
    git(root.parent, "init", "-q", str(root))
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.sync()
    calls = _count_calls(monkeypatch)
    kb.refresh()
    assert calls["scandir"] == 0
    # before: about 20 per doc; and per folder (21: docs, docs/N, docs/N/sub) at most a
    # stat and, changed this recently, its markers: did it become a repository or a venv?
    assert calls["lstat"] + calls["stat"] <= 200 + 20 + FOLDER_LOOK * 21
    (root / "docs/3/sub/d61.md").write_text(
        doc("Doc 61", "Sixty-one now mentions zebras, with words enough to be indexed.\n")
    )
    assert [h.file_path for h in kb.search("zebras").hits] == ["docs/3/sub/d61.md"]


def _step(repo: Path, kb: KnowledgeBase, rng: random.Random, counter: int) -> str:
    """One random change to the work tree, the git index, HEAD or the ignore rules."""

    def pick() -> str:
        present = [p for p in [*DOCS, "docs/h.md", "docs/new.md"] if (repo / p).exists()]
        return rng.choice(present)

    op = rng.choice(["edit", "save", "create", "delete", "commit", "revert", "switch", "hook"])
    op = op if rng.random() < 0.9 else "ignore"
    if op == "edit":  # in place: no folder changes, only the file's stat data
        with (repo / pick()).open("a", encoding="utf-8") as out:
            out.write(f"\nEdit number {counter} appends a line of words.\n")
    elif op == "save":  # the editor pattern: write a temp file, rename it over
        target = repo / pick()
        temp = target.with_name(".tmp-save")
        temp.write_text(doc(f"Saved {counter}", f"Saved text {counter} replaces it, in words.\n"))
        os.replace(temp, target)
    elif op == "create":
        new = repo / rng.choice(["docs/new.md", "notes/new2.md", f"extra/n{counter}.md"])
        new.parent.mkdir(parents=True, exist_ok=True)
        new.write_text(doc(f"New {counter}", f"A new doc number {counter} appears in words.\n"))
    elif op == "delete":
        (repo / pick()).unlink()
    elif op == "commit":
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", f"step {counter}")
    elif op == "revert":  # a dirty doc back to HEAD's text: git status lists it no more
        git(repo, "checkout", "-q", "HEAD", "--", ".")
    elif op == "switch":  # no hooks installed: nothing tells kenso-git
        branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
        git(repo, "checkout", "-q", "-f", "other" if branch == "main" else "main")
    elif op == "hook":  # a hook's targeted sync of some paths
        kb.sync(paths=[pick(), pick()])
    else:
        lines = rng.choice(["notes/\n", "extra/\n", "", "g.md\n"])
        (repo / ".gitignore").write_text(lines, encoding="utf-8")
    return op


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_commits_switches_and_reverts_leave_a_fresh_index(
    repo: Path, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    kb = KnowledgeBase.open(repo)
    for counter in range(30):
        op = _step(repo, kb, rng, counter)
        if rng.random() < 0.5:
            kb.sync()
        else:
            kb.search("doc")  # the query-time check syncs first
            assert kb.freshness is not None and not kb.freshness.stale
        assert _files(kb.db_path) == _fresh(repo, tmp_path), f"after {op} (step {counter})"


def test_a_doc_only_kenso_sees_keeps_the_walk(repo: Path, tmp_path: Path) -> None:
    # .gitignore hides notes/, .kensoignore re-includes one doc: git never lists it.
    (repo / ".gitignore").write_text("secret/\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    kb = KnowledgeBase.open(repo)
    kb.sync()
    assert gitprobe.read_mark(kb.read(lambda c: dict(c.execute("SELECT key, value FROM meta"))))
    (repo / "secret").mkdir()
    (repo / "secret/s.md").write_text(doc("Secret", "The secret doc talks about walruses.\n"))
    (repo / ".kensoignore").write_text("!secret/\n", encoding="utf-8")
    kb.sync()
    assert _files(kb.db_path) == _fresh(repo, tmp_path)
    with (repo / "secret/s.md").open("a", encoding="utf-8") as out:
        out.write("\nNow it also mentions narwhals.\n")
    assert [h.file_path for h in kb.search("narwhals").hits] == ["secret/s.md"]


def test_a_symlinked_doc_follows_its_target(repo: Path, tmp_path: Path) -> None:
    os.symlink("a.md", repo / "docs/link.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link")
    kb = KnowledgeBase.open(repo)
    kb.sync()
    kb.sync()
    with (repo / "docs/a.md").open("a", encoding="utf-8") as out:
        out.write("\nThe target now speaks of capybaras.\n")
    git(repo, "commit", "-q", "-am", "target")  # the link itself never changes
    kb.sync()
    assert _files(kb.db_path) == _fresh(repo, tmp_path)
    assert sorted(h.file_path for h in kb.search("capybaras").hits) == ["docs/a.md", "docs/link.md"]


def test_after_an_ignore_rule_edit_one_check_walks_and_the_next_ones_do_not(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KENSO_QUERY_WATCH", "0")  # its arming walk is not the check's
    kb = KnowledgeBase.open(repo)
    kb.sync()
    (repo / ".gitignore").write_text("notes/\n", encoding="utf-8")
    kb.search("doc")  # the rules changed: a walk, and a whole sync that leaves a new mark
    assert all(path != "notes/f.md" for path, _, _ in _files(kb.db_path))
    calls = _count_calls(monkeypatch)
    kb.search("doc")
    kb.search("doc")
    assert calls["scandir"] == 0


def test_right_after_an_ingest_a_check_looks_at_no_unchanged_doc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The ingest read every doc after git status ran, but none changed after it did: its
    # mark lists none (no slack: these files were written just before, not a second before).
    monkeypatch.setattr(gitprobe, "CLOCK_SLACK_NS", 0)
    files = {f"docs/{i // 20}/d{i}.md": doc(f"Doc {i}") for i in range(200)}
    root = init_repo(tmp_path / "big", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    calls = _count_calls(monkeypatch)
    kb.search("doc")
    assert calls["scandir"] == 0 and calls["stat"] < 20 + 11  # one per folder (11)


def test_a_mark_full_of_just_written_docs_is_narrowed_by_the_next_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git clone && kenso-git ingest`: every doc was written within the clock slack of the
    ingest's git status, so its mark lists them all, and every later check lstat-ed every
    doc (27 ms a search on the docs corpus, against 6) until something else made a sync
    run. The first check that finds them unchanged now leaves a narrow mark."""
    files = {f"docs/{i // 20}/d{i}.md": doc(f"Doc {i}") for i in range(200)}
    root = init_repo(tmp_path / "clone", files)
    monkeypatch.setenv("KENSO_QUERY_WATCH", "0")  # each search runs the check measured here
    kb = KnowledgeBase.open(root)
    kb.ingest()
    listed = gitprobe.read_mark(_meta(kb.db_path))
    assert listed is not None and len(listed.docs) == 200  # the clone's docs are that new
    kb.search("doc")
    calls = _count_calls(monkeypatch)
    kb.search("doc")
    kb.search("doc")
    # none per doc; the markers of each folder (11) changed this recently, at each check
    assert calls["lstat"] < 20 + 2 * (FOLDER_LOOK - 1) * 11
    mark = gitprobe.read_mark(_meta(kb.db_path))
    assert mark is not None and not mark.docs
    assert _files(kb.db_path) == _fresh(root, tmp_path)


def _meta(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT key, value FROM meta"))
    finally:
        conn.close()


def test_an_index_synced_under_another_matcher_walks_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index synced by a version whose matcher hid a tracked doc (`x/**` with
    `!x/keep.md` hid it before git's folder rules were followed): the next check finds
    the doc, though no rule file changed since (the mark records the matcher)."""
    from kenso_git.repo import ignore

    root = init_repo(
        tmp_path / "repo",
        {
            ".gitignore": "x/**\n!x/keep.md\n",
            "docs/a.md": doc("A"),
            "x/keep.md": doc("Keep", "The keepword is here.\n"),
        },
    )
    real, real_in = ignore.IgnoreRules.is_ignored, ignore.IgnoreRules.is_ignored_in

    def older(self: ignore.IgnoreRules, rel: str, *, is_dir: bool = False) -> bool:
        return rel in ("x", "x/keep.md") or real(self, rel, is_dir=is_dir)

    def older_in(self: ignore.IgnoreRules, folder: str, name: str, *, is_dir: bool) -> bool:
        hidden = (folder, name) in (("", "x"), ("x", "keep.md"))
        return hidden or real_in(self, folder, name, is_dir=is_dir)

    with monkeypatch.context() as patched:
        patched.setattr(ignore, "MATCHER", "an older matcher")
        patched.setattr(ignore.IgnoreRules, "is_ignored", older)
        patched.setattr(ignore.IgnoreRules, "is_ignored_in", older_in)
        kb = KnowledgeBase.open(root)
        kb.ingest()
        assert [path for path, _, _ in _files(kb.db_path)] == ["docs/a.md"]
    kb = KnowledgeBase.open(root)
    kb.search("keepword")  # the query's check syncs first
    assert [path for path, _, _ in _files(kb.db_path)] == ["docs/a.md", "x/keep.md"]


def _linked_repo(root: Path) -> Path:
    """main: docs/guide/a.md and docs/link.md, a symlink to it; branch `gone` deletes the
    target (the link stays, dangling there); main checked out again."""
    quokka = doc("Alpha", "The alpha page talks about the quokka at length, words enough.\n")
    init_repo(root, {"docs/guide/a.md": quokka, "docs/b.md": doc("B")}, commit=False)
    os.symlink("guide/a.md", root / "docs/link.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "checkout", "-q", "-b", "gone")
    git(root, "rm", "-q", "docs/guide/a.md")
    git(root, "commit", "-q", "-m", "gone")
    git(root, "checkout", "-q", "main")
    return root


def test_a_dangling_symlinked_doc_is_indexed_again_when_its_target_comes_back(
    tmp_path: Path,
) -> None:
    """The link's own blob (its text, `guide/a.md`) never changes: git lists only the
    target when it goes and comes back. A sync that skipped the dangling link must still
    name it in the mark, however many syncs ran on the branch without the target (hooks
    run two on a quick `checkout main && checkout gone`: the first one's rerun)."""
    root = _linked_repo(tmp_path / "repo")
    kb = KnowledgeBase.open(root)
    kb.ingest()
    git(root, "checkout", "-q", "gone")
    kb.sync()  # the target vanished: both docs leave the index
    kb.sync()  # the second sync no longer lists the removed docs
    assert [path for path, _, _ in _files(kb.db_path)] == ["docs/b.md"]
    git(root, "checkout", "-q", "main")
    report = kb.sync()
    assert _files(kb.db_path) == _fresh(root, tmp_path)
    assert "docs/link.md" in [path for path, _, _ in _files(kb.db_path)]
    assert report.count("unchanged") < report.total  # the link was read again
    assert kb.state().stale is False  # `stats` and `sync` agree
    assert sorted(h.file_path for h in kb.search("quokka").hits) == [
        "docs/guide/a.md",
        "docs/link.md",
    ]


def test_a_symlinked_doc_dangling_at_ingest_is_indexed_once_its_target_is_written(
    tmp_path: Path,
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/b.md": doc("B")}, commit=False)
    os.symlink("guide/a.md", root / "docs/link.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    kb = KnowledgeBase.open(root)
    kb.ingest()
    kb.sync()  # walk-free: the mark must name the link the walk skipped
    (root / "docs/guide").mkdir()
    wombats = doc("Alpha", "Now the alpha page names wombats, with words enough to index.\n")
    (root / "docs/guide/a.md").write_text(wombats)
    assert sorted(h.file_path for h in kb.search("wombats").hits) == [
        "docs/guide/a.md",
        "docs/link.md",
    ]
    assert _files(kb.db_path) == _fresh(root, tmp_path)


def test_a_mark_that_forgot_a_dangling_link_walks_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index synced by a version whose mark kept only the indexed links (format 1): the
    next sync walks, and finds the link whose target came back since."""
    from kenso_git.index import look

    root = _linked_repo(tmp_path / "repo")
    with monkeypatch.context() as patched:
        patched.setattr(gitprobe, "MARK_FORMAT", 1)
        patched.setattr(look, "_is_symlink", lambda _root, _rel: False)
        kb = KnowledgeBase.open(root)
        kb.ingest()
        git(root, "checkout", "-q", "gone")
        kb.sync()
        kb.sync()
        git(root, "checkout", "-q", "main")
        kb.sync()
        assert "docs/link.md" not in [path for path, _, _ in _files(kb.db_path)]
    kb = KnowledgeBase.open(root)
    kb.sync()
    assert _files(kb.db_path) == _fresh(root, tmp_path)
