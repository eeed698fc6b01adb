"""A file named as the index that holds something else is never written into nor replaced:
`ingest --rebuild --db README.md` replaced the README with an index, and `ingest --db app.db`
added kenso-git's tables to an application's own SQLite database."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo

EXE = [sys.executable, "-m", "kenso_git"]
README = b"# Readme\n\nImportant words that must never be lost to an index file.\n"


def _kenso(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, check=False)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha guide", "zeppelin words. " * 30)})


def _app_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users(name) VALUES ('alice')")
    conn.commit()
    conn.close()
    return path


def _untouched(path: Path, before: str, listing: set[str]) -> None:
    """The file as it was, and nothing left beside it (no -wal, -shm, lock or stamp)."""
    assert _digest(path) == before
    assert {p.name for p in path.parent.iterdir()} == listing


@pytest.mark.parametrize("rebuild", [False, True])
def test_a_markdown_file_named_by_db_is_never_replaced(tmp_path: Path, rebuild: bool) -> None:
    root = _repo(tmp_path)
    readme = root / "README.md"
    readme.write_bytes(README)
    listing = {p.name for p in root.iterdir()}
    proc = _kenso(
        root, "ingest", "--no-lint", *(["--rebuild"] if rebuild else []), "--db", "README.md"
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "not an SQLite database" in proc.stderr and "README.md" in proc.stderr
    assert "--rebuild`:" not in proc.stderr  # never the hint that would replace it
    _untouched(readme, hashlib.sha256(README).hexdigest(), listing)


@pytest.mark.parametrize("rebuild", [False, True])
def test_an_applications_database_named_by_db_is_left_as_it_was(
    tmp_path: Path, rebuild: bool
) -> None:
    root = _repo(tmp_path)
    app = _app_db(tmp_path / "app.db")
    before, listing = _digest(app), {p.name for p in tmp_path.iterdir()}
    commands = [("ingest", "--no-lint", "--rebuild")] if rebuild else [("ingest", "--no-lint")]
    if not rebuild:
        commands += [("sync",), ("search", "zeppelin"), ("stats",)]
    for args in commands:
        proc = _kenso(root, *args, "--db", str(app))
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "not a kenso-git index" in proc.stderr and "users" in proc.stderr
        _untouched(app, before, listing)
    assert sqlite3.connect(app).execute("SELECT name FROM users").fetchall() == [("alice",)]


def test_readers_name_a_file_that_is_no_database_without_the_rebuild_hint(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "README.md").write_bytes(README)
    proc = _kenso(root, "search", "--db", "README.md", "zeppelin")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "not an SQLite database" in proc.stderr and "--rebuild`:" not in proc.stderr


def test_an_empty_file_and_a_damaged_index_are_still_indexes_to_write(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    empty = tmp_path / "empty.db"
    empty.touch()
    assert _kenso(root, "ingest", "--no-lint", "--db", str(empty)).returncode == 0
    assert _kenso(root, "search", "--db", str(empty), "zeppelin").returncode == 0
    assert _kenso(root, "ingest", "--no-lint").returncode == 0
    index = root / ".kenso" / "docs.db"
    data = bytearray(index.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # the header kept, every page damaged
    index.write_bytes(bytes(data))
    assert _kenso(root, "ingest", "--no-lint", "--rebuild").returncode == 0
    assert _kenso(root, "search", "zeppelin").returncode == 0
    index.write_bytes(b"garbage where the header was" * 100)  # kenso-git's own folder
    proc = _kenso(root, "search", "zeppelin")
    assert proc.returncode == 1 and "--rebuild" in proc.stderr, proc.stderr
    assert _kenso(root, "ingest", "--no-lint", "--rebuild").returncode == 0
    assert _kenso(root, "search", "zeppelin").returncode == 0


@pytest.mark.parametrize("kind", ["folder", "fifo"])
@pytest.mark.parametrize("rebuild", [False, True])
def test_a_folder_or_a_device_named_by_db_is_refused_not_replaced(
    tmp_path: Path, kind: str, rebuild: bool
) -> None:
    """`--db docs` recursed until Python's limit (the build's name was always "taken");
    `ingest --rebuild --db /dev/null` replaced the device with an index file (as root). A
    pipe stands in for a device here: it must not even be opened (that would block)."""
    root = _repo(tmp_path)
    target = tmp_path / "target"
    if kind == "folder":
        target.mkdir()
    else:
        os.mkfifo(target)
    args = ("ingest", "--no-lint", *(["--rebuild"] if rebuild else []), "--db", str(target))
    proc = subprocess.run(
        [*EXE, *args], cwd=root, capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert ("a folder" if kind == "folder" else "not a regular file") in proc.stderr
    assert "Traceback" not in proc.stderr
    mode = target.lstat().st_mode
    assert stat.S_ISDIR(mode) if kind == "folder" else stat.S_ISFIFO(mode)
    assert not list(target.iterdir()) if kind == "folder" else True


def test_a_lock_or_mark_of_someone_else_beside_a_db_index_is_left_alone(tmp_path: Path) -> None:
    """The write lock (`sync.lock`) and the rerun mark (`sync.dirty`) live beside an index
    named by --db: a file of either name holding text was overwritten (the lock: truncated
    to a pid) or deleted (the mark). The lock is now refused with a usage error, the mark
    is not taken for one."""
    root = _repo(tmp_path)
    folder = tmp_path / "shared"
    folder.mkdir()
    lock, mark = folder / "sync.lock", folder / "sync.dirty"
    lock.write_text("my own sync notes\n")
    mark.write_text("my own dirty laundry list\n")
    proc = _kenso(root, "ingest", "--no-lint", "--db", str(folder / "idx.db"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "not kenso-git's lock" in proc.stderr
    assert lock.read_text() == "my own sync notes\n"
    lock.unlink()
    assert _kenso(root, "ingest", "--no-lint", "--db", str(folder / "idx.db")).returncode == 0
    assert _kenso(root, "sync", "--db", str(folder / "idx.db")).returncode == 0
    assert mark.read_text() == "my own dirty laundry list\n"


@pytest.mark.parametrize("rebuild", [False, True])
def test_an_empty_file_git_tracks_or_an_empty_page_is_not_an_index(
    tmp_path: Path, rebuild: bool
) -> None:
    """An empty placeholder committed with the project (`NOTES.txt`) became an SQLite file
    (git: modified) with `NOTES.txt.verified` and `sync.lock` beside it."""
    root = _repo(tmp_path)
    (root / "NOTES.txt").touch()
    (root / "draft.md").touch()
    subprocess.run(["git", "add", "NOTES.txt"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "notes"], cwd=root, check=True)
    listing = {p.name for p in root.iterdir()}
    for name, what in (("NOTES.txt", "a file git tracks"), ("draft.md", "a Markdown page")):
        args = ("ingest", "--no-lint", *(["--rebuild"] if rebuild else []), "--db", name)
        proc = _kenso(root, *args)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        assert f"{name} is {what} (empty)" in proc.stderr
        assert (root / name).stat().st_size == 0
    assert {p.name for p in root.iterdir()} == listing


@pytest.mark.parametrize("command", [("search", "zeppelin"), ("stats",), ("state",)])
def test_readers_say_a_folder_named_by_db_is_a_folder(tmp_path: Path, command: tuple) -> None:
    """`search --db cache` (a folder) said "no search index: run kenso-git ingest once",
    and that ingest refuses the folder."""
    root = _repo(tmp_path)
    (root / "cache").mkdir()
    proc = _kenso(root, *command, "--db", "cache")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "cache is a folder" in proc.stderr and "ingest` once" not in proc.stderr
