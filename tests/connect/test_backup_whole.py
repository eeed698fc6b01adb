"""`connect --write` never leaves an empty or partial backup of the user's original, and one
an earlier version left is not kept as "the original" (tester t49d, #4).

On a full disk the backup copy failed part way and left `NAME.kenso-git.bak` (or `NAME.bak`)
empty or cut short; every later successful `--write` kept it, so the original was lost for
good. Now the copy is written to a temporary file and renamed into place once on disk, and
a backup that is empty while the file is not, or a strict beginning of the file that does
not parse where the file does, is replaced on the next write.

The full disk without a mount: a file-size limit (`ulimit -f`, EFBIG) below the original's
size, which `connect` meets as it would ENOSPC.
"""

from __future__ import annotations

import json
import os
import resource
import signal
from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli

# ~20 KB: more than the file-size limit below, so its copy cannot be written whole
ORIGINAL = json.dumps({"mcpServers": {"other": {"command": "x", "args": ["y"] * 4000}}}) + "\n"
LIMIT = 8192


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _repo(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    return init_repo(tmp_path / "repo", {"a.md": doc("Alpha"), **files})


def test_a_backup_that_cannot_be_written_whole_is_not_left_behind(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".mcp.json": ORIGINAL})
    kept = root / ".mcp.json.kenso-git.bak"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    failed = cli(root, "connect", "claude-code", "--write", env=env, preexec_fn=_small_files)
    assert failed.returncode == 2, failed.stderr
    assert "cannot write" in failed.stderr and "File too large" in failed.stderr
    assert (root / ".mcp.json").read_text(encoding="utf-8") == ORIGINAL
    assert not kept.exists()  # no empty or partial "original"
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []
    done = cli(root, "connect", "claude-code", "--write")  # the limit gone
    assert done.returncode == 0, done.stderr
    assert kept.read_text(encoding="utf-8") == ORIGINAL


def test_an_empty_backup_left_by_an_earlier_failed_copy_is_replaced(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".mcp.json": ORIGINAL})
    kept = root / ".mcp.json.kenso-git.bak"
    kept.write_bytes(b"")
    proc = cli(root, "connect", "claude-code", "--write")
    assert proc.returncode == 0, proc.stderr
    assert f"(the original is kept in {kept})" in proc.stdout
    assert kept.read_text(encoding="utf-8") == ORIGINAL


def test_a_partial_backup_left_by_an_earlier_failed_copy_is_replaced(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".mcp.json": ORIGINAL})
    kept = root / ".mcp.json.kenso-git.bak"
    kept.write_text(ORIGINAL[:LIMIT], encoding="utf-8")  # what a copy cut short left
    proc = cli(root, "connect", "claude-code", "--write")
    assert proc.returncode == 0, proc.stderr
    assert kept.read_text(encoding="utf-8") == ORIGINAL


def test_the_backup_of_an_empty_original_is_kept(tmp_path: Path) -> None:
    root = _repo(tmp_path, {})
    (root / ".mcp.json").write_bytes(b"")
    kept = root / ".mcp.json.kenso-git.bak"
    kept.write_bytes(b"")  # the original was itself empty: this is it
    first = cli(root, "connect", "claude-code", "--write")
    assert first.returncode == 0, first.stderr
    again = cli(root, "connect", "claude-code", "--write")
    assert again.returncode == 0, again.stderr
    assert kept.read_bytes() == b""


def test_a_toml_original_our_entry_was_appended_to_is_kept(tmp_path: Path) -> None:
    original = '[mcp_servers.other]\ncommand = "x"\n'
    root = _repo(tmp_path, {".codex/config.toml": original})
    kept = root / ".codex" / "config.toml.kenso-git.bak"
    for _ in range(2):  # the second write finds the original a beginning of the file
        proc = cli(root, "connect", "codex", "--write")
        assert proc.returncode == 0, proc.stderr
    assert kept.read_text(encoding="utf-8") == original
    (root / ".codex" / "config.toml").write_text(original + "# mine\n", encoding="utf-8")
    proc = cli(root, "connect", "codex", "--write")
    assert proc.returncode == 0, proc.stderr
    assert kept.read_text(encoding="utf-8") == original
