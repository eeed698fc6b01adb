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


def test_blank_search_is_a_usage_error_like_over_mcp(tmp_path):
    # kenso's `search --json ""` printed {"error": "Empty query."} with exit 0; the MCP tool
    # answers a tool error: both the click-free fast path and the click command now exit 2
    # with the message, so the CLI and MCP agree (#15).
    exe = [sys.executable, "-m", "kenso_git"]
    for args in (["search", "", "--json"], ["search", "   ", "--json", "--color", "never"]):
        proc = subprocess.run(
            [*exe, *args], cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        assert "empty query" in proc.stderr and "hint:" in proc.stderr
    for args in (["search", ""], ["search", " ", "--limit=5"]):  # --limit=5: through click
        proc = subprocess.run(
            [*exe, *args], cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2 and "empty query" in proc.stderr
