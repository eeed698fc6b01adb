"""Run the CLI as a user the index's folder keeps out or forbids to write: user `nobody`
through setpriv when the suite runs as root (whom file modes do not stop), else this user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.index.test_reliability import cli

SOURCE = str(Path(__file__).resolve().parents[1])
SITE = next(p for p in sys.path if p.endswith("site-packages"))
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
Run = Callable[..., "subprocess.CompletedProcess[str]"]


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A folder other users can walk into and write (pytest's tmp_path is root's own, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="kenso-otheruser-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _nobody_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "safe.directory",
        "GIT_CONFIG_VALUE_0": "*",
        "PYTHONPATH": os.pathsep.join((SOURCE, SITE)),
    }


def _nobody_python(env: dict[str, str]) -> str | None:
    """A Python that user `nobody` can run with this checkout importable (the venv's may sit
    under root's 0700 home), else None."""
    if shutil.which("setpriv") is None:
        return None
    for python in (sys.executable, "/usr/bin/python3"):
        probe = [*NOBODY, python, "-c", "import sqlite3, click, kenso_git.cli.main"]
        if subprocess.run(probe, env=env, cwd="/", capture_output=True).returncode == 0:
            return python
    return None


def as_other_user(root: Path, home: Path) -> tuple[Run, bool]:
    """A function running the CLI in `root` as another user, and whether that user is
    `nobody` (the suite runs as root: give the files to nobody to make them its own).
    Skips the test when root has no Python nobody can run."""
    if os.geteuid() != 0:
        return (lambda *args: cli(root, *args)), False
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = _nobody_env(home)
    python = _nobody_python(env)
    if python is None:
        pytest.skip("running as root and no Python user nobody can run (setpriv) is here")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*NOBODY, python, "-m", "kenso_git", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run, True


def give_to_nobody(path: Path) -> None:
    """`chown -R nobody` (the suite runs as root)."""
    subprocess.run(["chown", "-R", "65534:65534", str(path)], check=True)
