"""A fresh machine: build the wheel, install it into a new venv, run the README's main job.

Needs PyPI (the build backend and the runtime dependencies are downloaded), so it is slow.
The repository's docs/ are copied into a new git repository under tmp_path, so nothing is
written into this checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=900
    )
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KENSO_", "GIT_"))}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env["HOME"] = str(tmp / "home")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    (tmp / "home").mkdir(exist_ok=True)
    return env


@pytest.mark.slow
def test_wheel_installs_into_a_new_venv_and_finds_the_projects_docs(tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    source = tmp_path / "src"  # a copy, so the build leaves no build/ or egg-info in the checkout
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv*",
            ".kenso",
            ".work",
            ".hypothesis",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            ".*_cache",
        ),
    )
    dist = tmp_path / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
        tmp_path,
        env,
    )
    wheels = sorted(dist.glob("kenso_git-*.whl"))
    assert len(wheels) == 1

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    _run([str(venv / "bin" / "pip"), "install", "-q", str(wheels[0])], tmp_path, env)
    exe = str(venv / "bin" / "kenso-git")
    probe = (
        "import kenso_git.text.terms as t; print(t.content_expansion is t.python_content_expansion)"
    )
    uses_python = _run([str(venv / "bin" / "python"), "-c", probe], tmp_path, env).stdout
    assert uses_python.strip() == "False", "the wheel lacks the compiled kenso_git.text._expand"

    assert "kenso-git ingest" in _run([exe, "--help"], tmp_path, env).stdout

    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", repo / "docs")
    _run(["git", "init", "-q", str(repo)], tmp_path, env)
    _run([exe, "ingest", "docs/"], repo, env)
    hits = json.loads(_run([exe, "search", "git hooks", "--json"], repo, env).stdout)
    assert isinstance(hits, list) and hits
    assert any(hit["file_path"] == "docs/git-integration.md" for hit in hits)
    text = _run([exe, "search", "git hooks"], repo, env).stdout
    assert "docs/git-integration.md" in text
