from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from kenso_git import __version__
from kenso_git.cli.main import cli


def test_version_flag_prints_the_package_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"kenso-git, version {__version__}"


def test_help_teaches_the_first_steps():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "kenso-git ingest" in result.output
    assert "Exit codes" in result.output


def test_python_dash_m_runs_the_cli():
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert __version__ in proc.stdout
