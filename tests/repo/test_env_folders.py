"""Environment folders (a virtualenv, node_modules...) are not the project's docs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kenso_git.config import Settings
from kenso_git.repo.discover import discover
from kenso_git.repo.discover import discover_paths
from kenso_git.repo.workspace import find_workspace
from tests.helpers import init_repo
from tests.helpers import write

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"


def _project_with_environments(root: Path, *, real_venv: bool = False) -> Path:
    init_repo(root, {"docs/guide.md": DOC})
    if real_venv:  # a real virtualenv in the project, not ignored (getting-started allows it)
        venv = [sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")]
        subprocess.run(venv, check=True)
    else:
        write(root, {".venv/pyvenv.cfg": "home = /usr/bin\n"})
    write(
        root,
        {
            ".venv/lib/site-packages/pkg-1.0.dist-info/LICENSE.md": DOC,
            "env2/pyvenv.cfg": "home = /usr/bin\n",
            "env2/README.md": DOC,
            "web/node_modules/left-pad/README.md": DOC,
            "web/notes.md": DOC,
        },
    )
    return root


def test_bare_ingest_skips_environment_folders_with_one_summary_line(tmp_path: Path) -> None:
    root = _project_with_environments(tmp_path / "repo", real_venv=True)
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "ingest", "--json", "--no-lint"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"docs/guide.md"' in proc.stdout and '"web/notes.md"' in proc.stdout
    for hidden in (".venv/", "env2/", "node_modules/"):
        assert hidden not in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if "environment folder" in line]
    assert len(lines) == 1, proc.stderr
    assert ".venv" in lines[0] and "env2" in lines[0] and "web/node_modules" in lines[0]


def test_environment_folders_are_skipped_by_targeted_discovery_too(tmp_path: Path) -> None:
    root = _project_with_environments(tmp_path / "repo")
    ws, said = find_workspace(root), []
    assert [sf.path for sf in discover(ws, Settings(), warn=said.append)] == [
        "docs/guide.md",
        "web/notes.md",
    ]
    assert len(said) == 1
    changed = ["env2/README.md", "web/node_modules/left-pad/README.md", "web/notes.md"]
    assert [sf.path for sf in discover_paths(ws, Settings(), changed)] == ["web/notes.md"]
