"""The write lock every writer takes: commands wait (and say so), hooks never hold git."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.gitrepo import fixed_git_identity
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

__all__ = ["fixed_git_identity"]


def start(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """The command as a user starts it: Ctrl-C interrupts it even when the test run itself
    was started in the background, where the shell makes SIGINT ignored for its children."""
    return subprocess.Popen(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {f"docs/d{i}.md": doc(f"Doc {i}") for i in range(4)})
    proc = start(root, "ingest", "--no-lint")
    assert proc.communicate(timeout=120)[1] == "" and proc.returncode == 0
    return root


LOCK_FILE, DIRTY_FILE = "sync.lock", "sync.dirty"  # beside the database, as the hooks had them


def try_lock(folder: Path) -> int | None:
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


@contextmanager
def holding(folder: Path) -> Iterator[None]:
    fd = try_lock(folder)
    assert fd is not None
    try:
        yield
    finally:
        os.close(fd)


def wait_until_held(folder: Path, proc: subprocess.Popen[str], timeout: float = 30) -> None:
    """Until `proc` holds the lock: it writes its pid into the file (a probe by flock would
    itself make `proc` wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if (folder / LOCK_FILE).read_text(encoding="ascii") == str(proc.pid):
            return
        time.sleep(0.01)
    raise AssertionError("the command never took the write lock")


def test_a_command_waits_for_the_lock_says_so_and_ctrl_c_ends_the_wait(indexed: Path) -> None:
    folder = indexed / ".kenso"
    with holding(folder):
        proc = start(indexed, "sync")
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the process blocks, so this returns with its line
        assert "waiting for pid" in line and str(os.getpid()) in line
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err


def test_a_command_waiting_for_the_lock_runs_once_it_is_free(indexed: Path) -> None:
    folder = indexed / ".kenso"
    write(indexed, {"docs/new.md": doc("New")})
    with holding(folder):
        proc = start(indexed, "sync")
        assert proc.stderr is not None
        assert "waiting for pid" in proc.stderr.readline()
    out, _err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert "1 updated" in out


def _moved(root: Path) -> tuple[str, str, str]:
    """post-checkout's arguments for a move from HEAD~1 to HEAD (what the commit changed)."""
    old, new = git(root, "rev-parse", "HEAD~1", "HEAD").split()
    return old, new, "1"


def test_a_hook_does_not_wait_for_a_command_that_is_writing(indexed: Path) -> None:
    """The command holds the lock and waits for SQLite (a reader-writer here stands in for
    its long write); the hook hands its sync over and returns within about a second."""
    db = indexed / ".kenso" / "docs.db"
    blocker = connect_raw(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        ingest = start(indexed, "ingest", "--no-lint")
        wait_until_held(indexed / ".kenso", ingest)
        write(indexed, {"docs/d1.md": doc("Doc 1", "Changed by a commit. " * 20)})
        git(indexed, "commit", "-q", "-am", "edit")
        hook = start(indexed, "hook", "post-checkout", *_moved(indexed))
        _out, err = hook.communicate(timeout=20)  # before the fix: 60 s in SQLite's busy wait
        assert hook.returncode == 0
        assert "is writing the index; it syncs these too" in err
        assert (indexed / ".kenso" / DIRTY_FILE).exists()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert ingest.communicate(timeout=120)[1] == "" and ingest.returncode == 0
    assert not (indexed / ".kenso" / DIRTY_FILE).exists()  # the holder synced for it
    conn = connect_raw(db)
    try:
        hits = conn.execute("SELECT COUNT(*) FROM chunks WHERE content LIKE '%by a commit%'")
        assert hits.fetchone()[0] == 1
    finally:
        conn.close()


@pytest.fixture
def read_only_index(indexed: Path) -> Iterator[Path]:
    """The repository's .kenso folder on a read-only bind mount (needs CAP_SYS_ADMIN)."""
    folder = indexed / ".kenso"
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root in a mount namespace)")
    try:
        remount = ["mount", "-o", "remount,ro,bind", str(folder)]
        assert subprocess.run(remount, capture_output=True).returncode == 0
        yield indexed
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_read_only_index_folder_is_named_by_hooks_and_commands(read_only_index: Path) -> None:
    root = read_only_index
    write(root, {"docs/d1.md": doc("Doc 1", "Changed on a read-only index. " * 20)})
    git(root, "commit", "-q", "-am", "edit")
    hook = start(root, "hook", "post-checkout", *_moved(root))
    _out, err = hook.communicate(timeout=60)
    assert hook.returncode == 0
    assert "OSError" not in err and "read-only" in err, err
    assert len(err.splitlines()) == 1
    sync = start(root, "sync")
    _out, err = sync.communicate(timeout=60)
    assert sync.returncode == 1
    assert "read-only" in err and "Traceback" not in err, err


def test_a_lock_file_removed_while_it_is_taken_is_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rm -rf .kenso` between a writer's open of the lock and its flock: a lock on the
    removed file excludes no writer that opens the path after it."""
    from kenso_git.index import lock

    path = tmp_path / "sync.lock"
    real_open = lock._open_lock
    removed: list[int] = []

    def open_then_remove(p: Path) -> int:
        fd = real_open(p)
        if not removed:
            removed.append(fd)
            p.unlink()  # the fault: the folder is removed under the writer
        return fd

    monkeypatch.setattr(lock, "_open_lock", open_then_remove)
    fd = lock.try_lock(path)
    assert fd is not None and removed
    try:
        held, named = os.fstat(fd), os.stat(path)
        assert (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)
        assert try_lock(tmp_path) is None  # another writer opening the path is excluded
    finally:
        os.close(fd)


def test_a_process_forked_under_the_lock_does_not_keep_it_held(tmp_path: Path) -> None:
    """A writer forks under the lock (parse workers, the ingest's lint summary) and the child
    has the lock's open file: letting go must free the lock while the child still runs, or
    a hook that left its mark would find nobody to sync for it."""
    from kenso_git.index.lock import coalesced

    folder = tmp_path / ".kenso"
    children: list[int] = []

    def job(_round: int) -> None:
        pid = os.fork()
        if pid == 0:  # outlives the job; killed below
            time.sleep(60)
            os._exit(0)
        children.append(pid)

    try:
        assert coalesced(folder, job, wait=1.0, own_run=True)
        fd = try_lock(folder)
        assert fd is not None, "the forked child kept the lock"
        os.close(fd)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
