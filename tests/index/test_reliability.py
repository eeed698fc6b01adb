"""Faults around the index file: stale journals, corruption, full disks, concurrent writers."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import kenso_git
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

DOCS = {f"docs/d{i}.md": doc(f"Doc {i}") for i in range(6)}


# The source tree of the kenso_git under test: a child process runs that one too, not the
# one installed in the virtualenv (run from an older checkout, these tests test it).
SOURCE = str(Path(kenso_git.__file__).resolve().parents[1])


def cli(cwd: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = dict(kwargs.pop("env", None) or os.environ)  # type: ignore[call-overload]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SOURCE, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
        **kwargs,  # type: ignore[arg-type]
    )


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", DOCS)
    assert cli(root, "ingest", "--no-lint").returncode == 0
    return root


def _leave_a_stale_wal(db: Path) -> None:
    """A process that wrote to the index dies before any checkpoint: -wal and -shm stay."""
    code = (
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA wal_autocheckpoint=0')\n"
        "for i in range(50):\n"
        "    conn.execute('INSERT OR REPLACE INTO meta VALUES (?, hex(randomblob(2000)))',"
        " (f'junk{i}',))\n"
        "os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(db)], check=False, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert Path(f"{db}-wal").stat().st_size > 0


def test_a_new_index_is_never_published_beside_an_old_wal(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    _leave_a_stale_wal(db)
    db.unlink()  # what the old hint said to do
    write(indexed, {f"more/m{i}.md": doc(f"More {i}", "other words. " * 300) for i in range(30)})
    assert cli(indexed, "ingest", "--no-lint").returncode == 0
    stats = cli(indexed, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert '"documents": 36' in stats.stdout
    assert integrity(db) == "ok"


def _corrupt(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = db.stat().st_size
    with db.open("r+b") as out:  # every page after the first few: the chunks and their FTS
        out.seek(4096 * 3)
        out.write(b"\xa5" * (size - 4096 * 3))


def test_ingest_on_a_corrupt_index_fails_and_rebuild_recovers(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    _corrupt(db)
    failed = cli(indexed, "ingest", "--no-lint")
    assert failed.returncode == 1
    assert "corrupt" in failed.stderr
    assert "ingest --rebuild" in failed.stderr
    assert "delete" not in failed.stderr
    stats = cli(indexed, "stats")
    assert "ingest --rebuild" in stats.stderr and "delete" not in stats.stderr
    rebuilt = cli(indexed, "ingest", "--rebuild", "--no-lint")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert integrity(db) == "ok"
    assert '"documents": 6' in cli(indexed, "stats", "--json").stdout
    assert not list(db.parent.glob("docs.db.building-*"))


def _file_size_limit(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG


def test_a_file_size_limit_is_named_not_hidden_by_a_second_rollback(tmp_path: Path) -> None:
    big = {f"docs/big{i}.md": doc(f"Big {i}", "words and more words. " * 3000) for i in range(40)}
    root = init_repo(tmp_path / "repo", {**DOCS, **big})
    proc = cli(root, "ingest", "--no-lint", preexec_fn=lambda: _file_size_limit(256 * 1024))
    assert proc.returncode == 1
    assert "cannot rollback" not in proc.stderr
    assert "disk is full or a file-size limit was reached" in proc.stderr
    assert "corrupt" not in proc.stderr and "delete" not in proc.stderr


def test_concurrent_first_runs_all_succeed(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    commands = [("ingest", "--no-lint"), ("sync",), ("ingest", "--no-lint"), ("sync",)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "kenso_git", *args],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    outcomes = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    for p in procs:
        for stream in (p.stdout, p.stderr):
            if stream is not None:
                stream.close()
    assert [code for code, _ in outcomes] == [0, 0, 0, 0], outcomes
    assert integrity(root / ".kenso" / "docs.db") == "ok"


def test_sigterm_names_itself_and_leaves_no_build_file(tmp_path: Path) -> None:
    big = {f"docs/b{i}.md": doc(f"B {i}", "some text to index. " * 200) for i in range(300)}
    root = init_repo(tmp_path / "repo", big)
    env = {**os.environ, "KENSO_TEST_KILL_AFTER_FILES": "5:TERM"}
    proc = cli(root, "ingest", "--no-lint", env=env)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "terminated" in proc.stderr
    assert not list((root / ".kenso").glob("docs.db.building-*"))
    assert not (root / ".kenso" / "docs.db").exists()


def test_an_orphan_branch_is_not_stale_forever_and_names_no_other_commit(indexed: Path) -> None:
    git(indexed, "checkout", "-q", "--orphan", "fresh")
    assert cli(indexed, "sync").returncode == 0
    stats = cli(indexed, "stats", "--json")
    assert '"as_of": null' in stats.stdout
    assert '"stale": false' in stats.stdout
    write(indexed, {"docs/new.md": doc("New")})
    git(indexed, "add", "-A")
    git(indexed, "commit", "-q", "-m", "first on fresh")
    head = git(indexed, "rev-parse", "HEAD").strip()
    assert cli(indexed, "sync").returncode == 0
    assert f'"as_of": "{head}"' in cli(indexed, "stats", "--json").stdout


def test_a_sync_on_an_orphan_branch_forgets_the_other_branch_commit(tmp_path: Path) -> None:
    # In-process, so it tests the code it imports however it is launched (the test above,
    # through a child process, passed against 553ca8c when that child ran newer code).
    root = init_repo(tmp_path / "repo", DOCS)
    main_head = git(root, "rev-parse", "HEAD").strip()
    kb = KnowledgeBase.open(root)
    kb.ingest()
    assert kb.state().as_of == main_head
    git(root, "checkout", "-q", "--orphan", "fresh")
    kb.sync()
    state = kb.state()
    assert (state.as_of, state.stale) == (None, False)  # 553ca8c: (main_head, True)
    write(root, {"docs/new.md": doc("New")})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first on fresh")
    assert kb.state().stale is True
    kb.sync()
    state = kb.state()
    assert (state.as_of, state.stale) == (git(root, "rev-parse", "HEAD").strip(), False)
    kb.close()


def test_ingest_reports_damaged_pages_that_a_no_op_run_would_not_touch(indexed: Path) -> None:
    db = indexed / ".kenso" / "docs.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root_page = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'index_totals'"
    ).fetchone()
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    # the running totals (#32): read by `stats`, not by an unchanged ingest
    with db.open("r+b") as out:
        out.seek((root_page[0] - 1) * page_size)
        out.write(b"\xa5" * page_size)
    # `stats` checks the pages of a file changed since its writer left it (stop 49): it
    # names the damage and the rebuild, where it used to fail on reading the totals
    shown = cli(indexed, "stats")
    assert shown.returncode == 1
    assert "index database is corrupt" in shown.stderr and "ingest --rebuild" in shown.stderr
    failed = cli(indexed, "ingest", "--no-lint")
    assert failed.returncode == 1
    assert "corrupt" in failed.stderr and "ingest --rebuild" in failed.stderr
