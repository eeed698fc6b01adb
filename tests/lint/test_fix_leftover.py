"""A `lint --fix` killed while writing leaves its temporary copy of the page beside it; the
next `lint --fix` writing in that folder removes it, and only its own (tester t48b, finding
3: `docs/a/.p1382.md.t0uj8smu` stayed, and `git add -A` committed it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
# a case slip `lint --fix` corrects: it writes docs/linker.md
LINKER = PAGE.format(t="Linker") + "\nSee [steps](#Install-Steps).\n\n## Install Steps\n\nMore.\n"
# the writer stops for good once the temporary file is written (before its rename), and is
# killed there as by kill -9
WRITER = """
import os, sys, time
from pathlib import Path
os.fsync = lambda fd: time.sleep(600)
from kenso_git.lint.rewrite import read_snapshot, rewrite
page = Path(sys.argv[1])
rewrite(page, read_snapshot(page), b"# Killed\\n")
"""


def _repo(repo: Path) -> None:
    write(repo, {"docs/page.md": PAGE.format(t="Page"), "docs/linker.md": LINKER})
    commit_all(repo, "pages")


def _untracked(repo: Path) -> list[str]:
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    return [line for line in status.splitlines() if line.startswith("??")]


def _killed_mid_write(page: Path) -> Path:
    """The temporary file a writer of `page` killed before its rename left."""
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(page)])
    try:
        for _ in range(600):
            left = [p for p in page.parent.iterdir() if p.name.startswith(f".{page.name}.")]
            if left and left[0].stat().st_size:
                break
            assert writer.poll() is None, "the writer ended before writing"
            time.sleep(0.05)
    finally:
        writer.kill()
        writer.wait()
    assert len(left) == 1, left
    return left[0]


def test_lint_fix_removes_the_temporary_file_a_killed_fix_left(repo: Path) -> None:
    _repo(repo)
    page = repo / "docs" / "page.md"
    left = _killed_mid_write(page)
    assert page.read_text(encoding="utf-8") == PAGE.format(t="Page")  # never half-written
    assert _untracked(repo) == [f"?? docs/{left.name}"]
    # killed a while ago (past `rewrite.DEAD_AFTER`, ten minutes): a fresh one may be a live
    # writer's of another PID namespace
    minutes_ago = time.time() - 15 * 60
    os.utime(left, (minutes_ago, minutes_ago))
    fixed = run(repo, "--fix", "--select", "KS023", "docs")
    assert "fixed 1 finding in 1 file" in fixed.stderr, fixed.stderr
    # before: the copy stayed, for `git add -A` to commit
    assert _untracked(repo) == []


def test_lint_fix_leaves_temporary_files_not_left_by_a_dead_fix(repo: Path) -> None:
    _repo(repo)
    docs = repo / "docs"
    alive = f".page.md.{os.getpid()}.abcd_123.kenso.tmp"  # this process runs
    others = [alive, ".page.md.t0uj8smu", "notes.kenso.tmp", ".page.md.0.abcd_123.kenso.tmp"]
    for name in others:
        (docs / name).write_text("someone's\n", encoding="utf-8")
    stale = docs / f".page.md.{os.getpid()}.zzzz_999.kenso.tmp"  # its pid was reused
    stale.write_text("left an hour ago\n", encoding="utf-8")
    hours_ago = time.time() - 7200
    os.utime(stale, (hours_ago, hours_ago))
    fixed = run(repo, "--fix", "--select", "KS023", "docs")
    assert "fixed 1 finding in 1 file" in fixed.stderr, fixed.stderr
    assert sorted(_untracked(repo)) == sorted(f"?? docs/{name}" for name in others)


def _gone_pid() -> int:
    """The pid of a process that ran and is gone (as a writer in another PID namespace, or on
    another machine, looks from here)."""
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(ended.stdout)


def test_lint_fix_leaves_a_fresh_temporary_file_of_a_pid_it_cannot_see(repo: Path) -> None:
    _repo(repo)
    live = repo / "docs" / f".page.md.{_gone_pid()}.abcd_123.kenso.tmp"
    live.write_text("a container's fix, being written\n", encoding="utf-8")
    fixed = run(repo, "--fix", "--select", "KS023", "docs")
    assert "fixed 1 finding in 1 file" in fixed.stderr, fixed.stderr
    # before: removed, and the writer's rename then failed (tester t48d, finding 4)
    assert live.read_text(encoding="utf-8") == "a container's fix, being written\n"


# the writer's temporary file is removed while it is flushed, as a sweep in another PID
# namespace (or on another machine) sharing the folder removed it before the fix above
SWEPT = """
import os, sys
from pathlib import Path
page = Path(sys.argv[1])
real = os.fsync
def swept(fd):
    real(fd)
    if not getattr(swept, "done", False):
        swept.done = True
        for p in page.parent.glob("*.kenso.tmp"):
            p.unlink()
os.fsync = swept
from kenso_git.lint.rewrite import read_snapshot, rewrite
print(rewrite(page, read_snapshot(page), b"# Fixed\\n"))
"""


def test_a_fix_whose_temporary_file_is_removed_under_it_writes_again(repo: Path) -> None:
    _repo(repo)
    page = repo / "docs" / "page.md"
    done = subprocess.run([sys.executable, "-c", SWEPT, str(page)], capture_output=True, text=True)
    # before: FileNotFoundError from the rename, and the fix was lost
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")
    assert page.read_bytes() == b"# Fixed\n"
    assert _untracked(repo) == []
