"""`lint --fix` that cannot write a fixed file (disk full, a file-size limit, a read-only
checkout) names the file, the cause and the next step as `ingest` does, prints the findings
report, leaves every file as it was and exits 2: not "internal error ... please report" with
a traceback file and exit 1, which reads as "findings" (tester t49d, #3).

The disk-full case without a mount: a file-size limit (`ulimit -f`, EFBIG) below a fixed
file's size, as kenso-git treats it like a full disk. The read-only case: a folder and files
without write permission, or (as root, who ignores permissions) a read-only bind mount.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import init_repo
from tests.index.test_reliability import cli

BODY = "Some words of filler text for the page. " * 200  # ~8 KB
DOCS: dict[str, str | bytes] = {
    f"docs/p{i}.md": (
        f"# Page {i}\n\nIntro text of page {i} long enough for the preamble.\n\n"
        f"## Section One\n\nSee [the section](#Section-One) and [other](p{i % 3 + 1}.md"
        f"#SECTION-ONE).\n\n{BODY}\n"
    )
    for i in range(1, 4)
}
NEXT = "run `kenso-git lint --fix` again"


def _texts(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "docs").iterdir())}


def _honest(proc: subprocess.CompletedProcess[str], cause: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert f"kenso-git: error: docs/p1.md: cannot write the fixes: {cause}" in proc.stderr
    assert NEXT in proc.stderr and "this file and the rest are as they were" in proc.stderr
    assert ".kenso.tmp" not in proc.stderr  # the temporary file is no name the user knows
    assert "KS023" in proc.stdout, proc.stdout  # the findings report, as without --fix


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, as a full disk gives ENOSPC


def test_a_file_size_limit_is_named_and_the_report_printed(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    before = _texts(root)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = cli(root, "lint", "--fix", env=env, preexec_fn=_small_files)
    _honest(proc, "the disk is full or a file-size limit was reached")
    assert "free some disk space (or raise the limit)" in proc.stderr
    assert _texts(root) == before  # nothing changed, no temporary file left
    fixed = cli(root, "lint", "--fix")  # the limit gone: every file fixed
    assert fixed.returncode in (0, 1), fixed.stderr
    assert "fixed 6 findings in 3 files" in fixed.stderr, fixed.stderr


@pytest.fixture
def read_only_repo(tmp_path: Path) -> Iterator[Path]:
    """A checkout the user may not write: permissions, or for root a read-only bind mount."""
    root = init_repo(tmp_path / "repo", DOCS)
    if os.geteuid() != 0:
        folder = root / "docs"
        for path in folder.iterdir():
            path.chmod(stat.S_IRUSR | stat.S_IRGRP)
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        try:
            yield root
        finally:
            folder.chmod(stat.S_IRWXU)
        return
    for args in (["--bind", str(root), str(root)], ["-o", "remount,bind,ro", str(root)]):
        if subprocess.run(["mount", *args], capture_output=True).returncode != 0:
            subprocess.run(["umount", str(root)], capture_output=True)
            pytest.skip("cannot make a read-only bind mount here")
    try:
        yield root
    finally:
        subprocess.run(["umount", str(root)], check=True)


def test_a_read_only_checkout_is_named_and_the_report_printed(read_only_repo: Path) -> None:
    before = _texts(read_only_repo)
    proc = cli(read_only_repo, "lint", "--fix")
    _honest(proc, "the file or its folder is read-only")
    assert "make it writable" in proc.stderr
    assert _texts(read_only_repo) == before
