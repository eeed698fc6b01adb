"""Which copy of git's index (repo/statusindex.py) a command's statuses run on: the one in the
folder of the index the command names (`--db`, `KENSO_DATABASE_URL`) from the first status
on, one per git dir however `.git` is reached, and none left behind for a git dir that no
longer uses the folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenso_git.repo import statusindex
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

DAY = 86_400


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "apples grow here. " * 20)})


def _copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("git-status-index-*") if "." not in p.name)


def _git_logging_to(tmp_path: Path) -> tuple[Path, Path]:
    """A folder holding a `git` that logs the index it is given and its arguments, then runs
    the real git (to observe which index kenso-git's statuses read); and the log."""
    real = shutil.which("git")
    assert real is not None
    folder, log = tmp_path / "bin", tmp_path / "git.log"
    folder.mkdir()
    script = folder / "git"
    script.write_text(
        f'#!/bin/sh\nprintf "%s|%s\\n" "${{GIT_INDEX_FILE-}}" "$*" >> "{log}"\nexec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return folder, log


def _statuses(log: Path) -> list[str]:
    """The index file of every `git status` logged ("" for git's own)."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [line.split("|", 1)[0] for line in lines if " status " in f" {line.split('|', 1)[1]} "]


@pytest.mark.parametrize("command", ["search", "sync"])
@pytest.mark.parametrize("form", ["--db PATH", "--db=RELATIVE", "KENSO_DATABASE_URL"])
def test_a_command_naming_its_index_runs_every_status_on_the_copy_beside_it(
    repo: Path, tmp_path: Path, command: str, form: str
) -> None:
    db = tmp_path / "elsewhere" / "docs.db"
    ok = run_cli(repo, "ingest", "--no-lint", "--db", str(db))
    assert ok.returncode == 0, ok.stderr
    copy = db.parent / statusindex.copy_name(str(repo / ".git"))
    assert copy.is_file()  # ingest made it
    (repo / "docs/new.md").write_text(doc("Walrus", "walrus text here. " * 20))
    bin_folder, log = _git_logging_to(tmp_path)
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}
    env.pop("KENSO_DATABASE_URL", None)
    args = [command, "walrus"] if command == "search" else [command]
    if form == "--db PATH":
        args += ["--db", str(db)]
    elif form == "--db=RELATIVE":
        args.append(f"--db={os.path.relpath(db, repo / 'docs')}")
    else:
        env["KENSO_DATABASE_URL"] = str(db)
    done = subprocess.run(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=repo / "docs",
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    if command == "search":
        assert "docs/new.md" in done.stdout
    statuses = _statuses(log)
    assert statuses, log.read_text()
    assert all(Path(index) == copy for index in statuses), statuses  # never git's own index
    assert not (repo / ".kenso").exists()  # nothing made in the default folder


def test_a_db_that_does_not_exist_yet_gets_no_copy_beside_it(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    missing = run_cli(repo, "search", "apples", "--db", str(folder / "docs.db"))
    assert missing.returncode == 3, missing.stderr  # no index there
    assert list(folder.iterdir()) == []


def test_a_symlinked_git_dir_keeps_one_copy(repo: Path, tmp_path: Path) -> None:
    (repo / ".git").rename(tmp_path / "repo-gitdir")
    (repo / ".git").symlink_to(tmp_path / "repo-gitdir")
    ok = run_cli(repo, "ingest", "--no-lint")
    assert ok.returncode == 0, ok.stderr
    (repo / "docs/new.md").write_text(doc("Walrus", "walrus text here. " * 20))
    for args in (("search", "walrus"), ("sync",), ("search", "apples")):
        done = run_cli(repo, *args)
        assert done.returncode == 0, (args, done.stderr)
    assert _copies(repo / ".kenso") == [statusindex.copy_name(str(tmp_path / "repo-gitdir"))]


def _age(folder: Path, name: str, days: float) -> None:
    when = time.time() - days * DAY
    for path in folder.glob(f"{name}*"):
        os.utime(path, (when, when))


def test_a_writing_sync_removes_the_copies_no_git_dir_wrote_for_30_days(
    repo: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    db = shared / "docs.db"
    ok = run_cli(repo, "ingest", "--no-lint", "--db", str(db))
    assert ok.returncode == 0, ok.stderr
    old = _copies(shared)
    assert len(old) == 1
    moved = tmp_path / "moved"
    repo.rename(moved)  # its old git dir's copy is now no one's
    ok = run_cli(moved, "ingest", "--no-lint", "--db", str(db))
    assert ok.returncode == 0, ok.stderr
    current = statusindex.copy_name(str(moved / ".git"))
    assert sorted(_copies(shared)) == sorted([*old, current])
    # Another work tree's, written lately; and a file of the user's that only looks alike.
    recent = "git-status-index-0123456789abcdef"
    for suffix in ("", ".source"):
        shutil.copy(shared / (old[0] + suffix), shared / (recent + suffix))
    (shared / "git-status-index-notes.txt").write_text("mine")
    _age(shared, old[0], 31)
    _age(shared, "git-status-index-notes", 400)
    _age(shared, current, 400)  # its own, however old, is kept
    _age(shared, recent, 29)
    _age(shared, statusindex.PRUNED, 2)  # the folder was last looked over two days ago

    read = run_cli(moved, "search", "apples", "--db", str(db))
    assert read.returncode == 0, read.stderr
    assert old[0] in _copies(shared)  # a read removes nothing
    (moved / "docs/a.md").write_text(doc("Alpha", "pears grow here now. " * 20))
    wrote = run_cli(moved, "sync", "--db", str(db))
    assert wrote.returncode == 0, wrote.stderr
    assert sorted(_copies(shared)) == sorted([current, recent])
    assert not list(shared.glob(f"{old[0]}*"))  # its signature too
    assert (shared / f"{recent}.source").exists()
    assert (shared / "git-status-index-notes.txt").exists()
    _age(shared, recent, 31)  # the next look is a day away: a sync lists the folder once a day
    (moved / "docs/a.md").write_text(doc("Alpha", "plums grow here now. " * 20))
    assert run_cli(moved, "sync", "--db", str(db)).returncode == 0
    assert (shared / recent).exists()


def test_the_stamp_the_early_status_looks_for_is_the_one_writers_leave() -> None:
    from kenso_git.repo import statusindex
    from kenso_git.store import stamp

    assert statusindex.STAMP_SUFFIX == stamp.SUFFIX
