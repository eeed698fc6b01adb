"""kenso-git's statuses run on its own copy of git's index (#16): they answer exactly as git's
status of git's own index, build git's untracked cache in the copy, and never write git's
index; a copy that cannot be used falls back to git's own index."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.kb import KnowledgeBase
from kenso_git.repo import gitstatus
from kenso_git.repo import prestart
from kenso_git.repo import statusindex
from kenso_git.repo.gitstatus import stop_unread
from kenso_git.repo.workspace import find_workspace
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {f"docs/{d}/x{i}.md": doc(f"Doc {d}{i}") for d in "ab" for i in range(3)}
    files[".gitignore"] = "*.log\n/build/\n"
    root = init_repo(tmp_path / "repo", files)
    _index_folder(root)
    return root


def _index_folder(root: Path) -> None:
    """The index's folder, where the copy lives, git-ignored as an ingest makes it."""
    (root / ".kenso").mkdir()
    (root / ".git/info/exclude").write_text("/.kenso/\n")


def _copy(root: Path) -> Path:
    """Where kenso-git keeps its copy of `root`'s git index: in the index's folder."""
    return root / ".kenso" / statusindex.copy_name(str(root / ".git"))


def _prepare(root: Path) -> str | None:
    return statusindex.prepare(str(root / ".git"), str(root / ".kenso"))


def _signature(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def _git_status(root: Path) -> list[str]:
    """What `git status` of git's own index lists (no lock taken), as `status_paths` does."""
    out = git(root, "--no-optional-locks", "status", "--porcelain=v1", "-z", "-uall")
    return sorted(record[3:] for record in out.split("\0") if len(record) > 3)


def _ours(root: Path) -> list[str]:
    listed = gitstatus.status_paths(find_workspace(root), [])
    assert listed is not None
    return sorted(listed)


def test_a_sync_and_a_search_never_write_gits_index_and_git_caches_untracked_folders_in_the_copy(
    repo: Path,
) -> None:
    kb = KnowledgeBase.open(repo)
    kb.ingest()
    for path in repo.glob("docs/*/*.md"):
        os.utime(path)  # stat data a refreshing status of git's own index would rewrite
    before = _signature(repo / ".git/index")
    (repo / "docs/a/new.md").write_text(doc("Walrus"))
    kb.sync()
    assert [h.file_path for h in kb.search("walrus").hits] == ["docs/a/new.md"]
    assert _signature(repo / ".git/index") == before
    copy = _copy(repo)
    assert b"UNTR" in copy.read_bytes()  # git's untracked cache, kept in the copy
    assert not Path(f"{copy}{statusindex.LOCK}").exists()


def test_the_copy_is_made_again_when_gits_index_changes(repo: Path) -> None:
    first = _prepare(repo)
    assert first is not None
    assert Path(first).read_bytes() == (repo / ".git/index").read_bytes()
    inode = Path(first).stat().st_ino
    assert _prepare(repo) == first
    assert Path(first).stat().st_ino == inode  # unchanged: not copied again
    (repo / "docs/a/staged.md").write_text(doc("Staged"))
    git(repo, "add", "docs/a/staged.md")
    assert _prepare(repo) == first
    assert Path(first).read_bytes() == (repo / ".git/index").read_bytes()
    assert _ours(repo) == _git_status(repo) == ["docs/a/staged.md"]


_OPS = st.lists(
    st.sampled_from(
        [
            "edit",
            "create",
            "create-deep",
            "delete",
            "stage",
            "unstage",
            "ignored",
            "into-ignored-only-folder",
            "into-empty-folder",
            "commit",
            "switch",
            "touch",
        ]
    ),
    min_size=1,
    max_size=8,
)


def _apply(root: Path, op: str, step: int) -> None:
    if op in ("stage", "unstage", "commit", "switch"):
        _apply_git(root, op, step)
    elif op in ("ignored", "into-ignored-only-folder", "into-empty-folder"):
        _apply_odd_folder(root, op, step)
    else:
        tracked = sorted(p for p in root.glob("docs/*/*.md"))
        if not tracked and op in ("edit", "delete", "touch"):
            return
        one = tracked[step % len(tracked)] if tracked else root
        if op == "edit":
            one.write_text(doc(f"Edited {step}"))
        elif op == "create":
            (root / "docs/b" / f"n{step}.md").write_text(doc(f"New {step}"))
        elif op == "create-deep":
            (root / f"docs/c{step}/d").mkdir(parents=True, exist_ok=True)
            (root / f"docs/c{step}/d/n{step}.md").write_text(doc(f"Deep {step}"))
        elif op == "delete":
            one.unlink()
        elif op == "touch":
            os.utime(one)


def _apply_odd_folder(root: Path, op: str, step: int) -> None:
    name = f"n{step}.md"
    if op == "ignored":
        (root / "docs/a" / f"n{step}.log").write_text("ignored\n")
    elif op == "into-ignored-only-folder":
        # a folder that held only ignored files until now: git listed nothing there before
        (root / "logs").mkdir(exist_ok=True)
        (root / "logs" / f"n{step}.log").write_text("x\n")
        if step % 2:
            (root / "logs" / name).write_text(doc(f"Log note {step}"))
    elif op == "into-empty-folder":
        (root / "empty").mkdir(exist_ok=True)
        if step % 2:
            (root / "empty" / name).write_text(doc(f"Was empty {step}"))


def _apply_git(root: Path, op: str, step: int) -> None:
    if op == "unstage":
        git(root, "reset", "-q")
        return
    git(root, "add", "-A")
    if op == "commit":
        ident = ("-c", "user.name=t", "-c", "user.email=t@t")
        git(root, *ident, "commit", "-qm", f"c{step}", check=False)
    elif op == "switch":
        git(root, "stash", "-q", check=False)  # the test's own repository, not the project's
        git(root, "checkout", "-q", "-B", "side" if step % 2 else "main")


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_OPS)
def test_every_status_on_the_copy_answers_as_git_status_on_gits_own_index(
    tmp_path_factory: pytest.TempPathFactory, ops: list[str]
) -> None:
    """A status asked right after each change, through the copy (with git's untracked cache),
    lists what `git status` of git's own index lists."""
    root = tmp_path_factory.mktemp("prop") / "repo"
    init_repo(root, {"docs/a/x.md": doc("X"), "docs/b/y.md": doc("Y"), ".gitignore": "*.log\n"})
    _index_folder(root)
    assert _ours(root) == _git_status(root) == []
    for step, op in enumerate(ops):
        _apply(root, op, step)
        assert _ours(root) == _git_status(root), (step, op)
        assert _ours(root) == _git_status(root), (step, op)  # from the cache git just wrote


def test_a_copy_git_cannot_read_is_dropped_and_git_own_index_answers(repo: Path) -> None:
    copy = _prepare(repo)
    assert copy is not None
    Path(copy).write_bytes(b"DIRC not an index")  # torn by a crash; its signature still matches
    (repo / "docs/b/new.md").write_text(doc("New"))
    assert _ours(repo) == _git_status(repo) == ["docs/b/new.md"]
    assert _prepare(repo) == copy  # dropped, so copied again
    assert Path(copy).read_bytes() == (repo / ".git/index").read_bytes()


def test_a_user_who_turned_the_untracked_cache_off_is_obeyed(repo: Path) -> None:
    git(repo, "config", "core.untrackedCache", "false")
    (repo / "docs/b/new.md").write_text(doc("New"))
    for _ in range(2):
        assert _ours(repo) == ["docs/b/new.md"]
    assert b"UNTR" not in _copy(repo).read_bytes()


def test_a_lock_left_by_a_killed_git_is_cleared_once_old_and_a_live_one_is_respected(
    repo: Path,
) -> None:
    lock = Path(f"{_copy(repo)}{statusindex.LOCK}")
    lock.write_bytes(b"")  # a git copying or writing the copy right now
    assert _prepare(repo) is None  # no copy yet: git's own index
    assert _ours(repo) == []
    old = time.time() - statusindex.STALE_LOCK_S - 5
    os.utime(lock, (old, old))  # ...or one a killed git left behind
    assert _prepare(repo) == str(_copy(repo))
    assert not lock.exists()


def test_a_status_stopped_unread_leaves_no_lock_behind(repo: Path) -> None:
    ws = find_workspace(repo)
    for _ in range(5):
        (repo / "docs/a" / f"t{time.monotonic_ns()}.md").write_text(doc("T"))  # cache to write
        early = gitstatus.start_status(ws, head=None)
        assert early is not None and early.private is not None
        early.discard()
        assert not Path(f"{_copy(repo)}{statusindex.LOCK}").exists()


@pytest.mark.skipif(not hasattr(fcntl, "F_SETLEASE"), reason="leases tell an orphan (Linux)")
def test_a_lock_a_stopped_git_left_before_guarding_it_is_removed_and_a_held_one_kept(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git arms its signal cleanup only once its first lock file exists: a git stopped
    between the two leaves the lock, which no process holds open (made here by hand, as
    that git leaves it). Stopping a status removes it; a lock some process still holds
    open for writing (a live git's) is kept."""
    ws = find_workspace(repo)
    lock = Path(f"{_copy(repo)}{statusindex.LOCK}")
    (repo / "docs/a/new.md").write_text(doc("New"))
    assert _prepare(repo) is not None
    for held in (True, False):
        lock.write_bytes(b"")
        writer = os.open(lock, os.O_WRONLY) if held else -1
        try:
            early = gitstatus.start_status(ws, head=None)
            assert early is not None and early.private is not None
            early.discard()
            assert lock.exists() is held
        finally:
            if writer >= 0:
                os.close(writer)
    lock.write_bytes(b"")  # the same for a status `prestart` started that no one read
    monkeypatch.chdir(repo)
    started = prestart.start()
    assert started is not None and started.private is not None
    stop_unread(started)
    assert not lock.exists()


def test_no_index_yet_means_no_copy(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    _index_folder(root)
    assert _prepare(root) is None
    (root / "a.md").write_text(doc("A"))
    assert _ours(root) == ["a.md"]


def test_the_copy_keeps_the_mtime_of_gits_index_so_racily_clean_entries_are_reread(
    repo: Path,
) -> None:
    """git re-reads by content the entries whose mtime is not before its index's (written in
    the same tick: their stat data cannot tell an edit); the copy must not move that line."""
    copy = _prepare(repo)
    assert copy is not None
    assert Path(copy).stat().st_mtime_ns == (repo / ".git/index").stat().st_mtime_ns
