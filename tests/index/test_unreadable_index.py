"""An index folder this user may not read (another user's `.kenso/`, mode 0700) is named in
one error line with its exit code, never a Python traceback, on every command that opens it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli

SOURCE = str(Path(__file__).resolve().parents[2])
SITE = next(p for p in sys.path if p.endswith("site-packages"))
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
COMMANDS = [
    ("search", "apples"),
    ("search", "apples", "--no-sync", "--json"),
    ("stats",),
    ("state",),
    ("related", "a.md"),
    ("sync",),
    ("ingest",),
    ("hooks", "status"),
]


def _nobody_python(env: dict[str, str]) -> str | None:
    """A Python that user `nobody` can run with this checkout importable (the venv's may sit
    under root's 0700 home), else None."""
    for python in (sys.executable, "/usr/bin/python3"):
        probe = [*NOBODY, python, "-c", "import sqlite3, click, kenso_git.cli.main"]
        if shutil.which("setpriv") and subprocess.run(probe, env=env, cwd="/").returncode == 0:
            return python
    return None


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder other users can walk into (pytest's tmp_path is root's own, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="kenso-unreadable-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _runner(root: Path, home: Path):  # -> a function running the CLI as a user kept out
    if os.geteuid() != 0:
        (root / ".kenso").chmod(0o000)
        return lambda *args: cli(root, *args)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "safe.directory",
        "GIT_CONFIG_VALUE_0": "*",
        "PYTHONPATH": os.pathsep.join((SOURCE, SITE)),
    }
    python = _nobody_python(env)
    if python is None:
        pytest.skip("running as root and no Python user nobody can run (setpriv) is here")
    (root / ".kenso").chmod(0o700)
    return lambda *args: subprocess.run(
        [*NOBODY, python, "-m", "kenso_git", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_command_names_an_index_folder_it_cannot_read(shared: Path) -> None:
    root = init_repo(shared / "repo", {"a.md": doc("Alpha doc", "apples and orchards " * 10)})
    assert cli(root, "ingest", "--no-lint").returncode == 0
    (shared / "home").mkdir(mode=0o777)
    (shared / "home").chmod(0o777)
    run = _runner(root, shared / "home")
    try:
        for args in COMMANDS:
            proc = run(*args)
            assert proc.returncode == 1, (args, proc.stderr)
            assert "Traceback" not in proc.stderr, (args, proc.stderr)
            first, hint = proc.stderr.splitlines()[:2]
            assert first == (
                f"kenso-git: error: {root / '.kenso'}: the index cannot be read by this user "
                "(permission denied)"
            ), args
            assert hint.startswith("  hint: run kenso-git as its owner"), args
    finally:
        (root / ".kenso").chmod(0o700)


def test_a_permission_error_no_check_named_is_one_line_not_a_traceback(capsys) -> None:
    from kenso_git.cli.exit import run_and_exit

    def run() -> None:
        raise PermissionError(13, "Permission denied", "/srv/x/.kenso/synonyms.yml")

    with pytest.raises(SystemExit) as stopped:
        run_and_exit(run)
    assert stopped.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        "kenso-git: error: permission denied: /srv/x/.kenso/synonyms.yml",
        "  hint: run kenso-git as a user who may read (and, for a sync, write) it",
    ]
