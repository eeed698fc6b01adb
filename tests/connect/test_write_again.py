"""`connect --write` run again on a file that already holds its entry writes nothing (it
rewrote the file and kept a backup of its own output), and `--write --check` writes, then
checks what it wrote (it ignored --write and said to run --write)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo


def test_writing_the_same_entry_again_leaves_the_file_alone(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    first = run_cli(root, "connect", "claude-code", "--write")
    assert first.returncode == 0, first.stderr
    config = root / ".mcp.json"
    before = config.stat()
    again = run_cli(root, "connect", "claude-code", "--write")
    assert again.returncode == 0, again.stderr
    assert "up to date: nothing written" in again.stdout
    after = config.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not list(root.rglob("*.bak")), list(root.rglob("*.bak"))


def test_write_and_check_writes_then_checks_the_entry(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    ingest(root)
    both = run_cli(root, "connect", "claude-code", "--write", "--check")
    assert both.returncode == 0, both.stdout + both.stderr
    assert (root / ".mcp.json").is_file()
    assert "wrote the claude-code entry" in both.stdout
