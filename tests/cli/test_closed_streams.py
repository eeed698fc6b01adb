"""kenso-git started with stdout, stderr or stdin closed (`kenso-git search x >&-`): Python
leaves `sys.stdout` None, the first print crashed, and the crash handler then crashed too
(a second traceback after its "one line"); the next file opened got fd 1. The entry point
now puts /dev/null there, as `> /dev/null` would: the command runs as usual, unseen."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli


def _closed(root: Path, redirect: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`kenso-git ARGS` with `redirect` (`>&-`: stdout closed) in a shell, from `root`."""
    command = shlex.join([sys.executable, "-m", "kenso_git", *args])
    return subprocess.run(
        ["sh", "-c", f"exec {command} {redirect}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = {"docs/alpha.md": doc("Alpha", "This page talks about alphaword. " * 8)}
    root = init_repo(tmp_path_factory.mktemp("closed") / "repo", docs)
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    return root


@pytest.mark.parametrize(
    "args", [["search", "alphaword"], ["lint", "docs"], ["stats"], ["sync"]], ids=" ".join
)
def test_a_command_with_stdout_closed_runs_as_with_stdout_discarded(
    indexed: Path, args: list[str]
) -> None:
    proc = _closed(indexed, ">&-", *args)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_an_error_with_stdout_closed_is_its_one_line_on_stderr(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha")})
    proc = _closed(root, ">&-", "search", "alphaword")
    assert proc.returncode == 3
    assert proc.stderr.startswith("kenso-git: error: no search index")
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 2


def test_a_command_with_stderr_closed_keeps_its_output_and_exit_code(
    indexed: Path, tmp_path: Path
) -> None:
    found = _closed(indexed, "2>&-", "search", "alphaword")
    assert found.returncode == 0
    assert "docs/alpha.md" in found.stdout
    bare = init_repo(tmp_path / "bare", {"docs/a.md": doc("Alpha")})
    assert _closed(bare, "2>&-", "search", "alphaword").returncode == 3  # no index


def test_every_standard_stream_closed(indexed: Path) -> None:
    proc = _closed(indexed, "<&- >&- 2>&-", "search", "alphaword")
    assert proc.returncode == 0


def test_an_index_built_with_stdout_closed_is_whole(tmp_path: Path) -> None:
    """An ingest with stdout closed builds the whole index (its summary goes nowhere)."""
    docs = {f"docs/d{i}.md": doc(f"D{i}", f"pages about betaword {i}. " * 8) for i in range(3)}
    root = init_repo(tmp_path / "repo", docs)
    proc = _closed(root, ">&-", "ingest")
    assert (proc.returncode, proc.stderr) == (0, "")
    found = run_cli(root, "search", "betaword", "--json", "--no-sync")
    assert found.returncode == 0, found.stderr
    assert all(f"docs/d{i}.md" in found.stdout for i in range(3))


@pytest.mark.parametrize("stream", ["None", "closed"])
def test_the_error_handler_never_fails_on_a_missing_or_closed_stderr(stream: str) -> None:
    """A `main()` called where stderr is None or closed (no entry point to mend it) still
    exits with the error's code, not with the handler's own AttributeError or ValueError."""
    stderr = "None" if stream == "None" else "open(os.devnull, 'w')"
    code = (
        "import os, sys\n"
        "from kenso_git.cli.exit import run_and_exit\n"
        "from kenso_git.errors import NoIndexError\n"
        f"sys.stderr = {stderr}\n"
        "if sys.stderr is not None: sys.stderr.close()\n"
        "def run():\n    raise NoIndexError('no index', hint='ingest')\n"
        "run_and_exit(run)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (3, "")


def test_leaving_at_once_never_fails_on_a_missing_stdout() -> None:
    code = "import sys\nfrom kenso_git.entry import _exit_now\nsys.stdout = None\n_exit_now(5)\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (5, "")
