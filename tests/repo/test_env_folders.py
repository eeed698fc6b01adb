"""Environment folders (a virtualenv, node_modules...) are not the project's docs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.errors import ScopeError
from kenso_git.repo.discover import discover
from kenso_git.repo.discover import discover_paths
from kenso_git.repo.scope import scope_for
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


def test_a_link_into_an_environment_folder_is_skipped_as_its_target_is(tmp_path: Path) -> None:
    """A symlinked doc is indexed only when its real target would be (docs/security.md): a
    README inside node_modules or a virtualenv would not, so neither is a link to one."""
    root = _project_with_environments(tmp_path / "repo")
    (root / "docs" / "pad.md").symlink_to("../web/node_modules/left-pad/README.md")
    (root / "docs" / "env.md").symlink_to("../env2/README.md")
    (root / "docs" / "notes.md").symlink_to("../web/notes.md")
    ws, said = find_workspace(root), list[str]()
    found = [sf.path for sf in discover(ws, Settings(), warn=said.append)]
    assert found == ["docs/guide.md", "docs/notes.md", "web/notes.md"]
    assert sum("leads into an environment folder" in line for line in said) == 2, said
    linked = ["docs/pad.md", "docs/env.md", "docs/notes.md"]
    assert [sf.path for sf in discover_paths(ws, Settings(), linked)] == ["docs/notes.md"]


def test_the_scope_gate_refuses_what_discovery_skips_as_an_environment(tmp_path: Path) -> None:
    """Every path in an environment folder, the folder itself, and a link leading into one:
    refused as `environment` by `resolve` (and as written, at a revision), and never shown."""
    root = _project_with_environments(tmp_path / "repo")
    (root / "docs" / "pad.md").symlink_to("../web/node_modules/left-pad/README.md")
    (root / "docs" / "vendor").symlink_to("../web/node_modules")
    scope = scope_for(find_workspace(root), Settings())
    files = [
        ".venv/lib/site-packages/pkg-1.0.dist-info/LICENSE.md",
        "env2/README.md",
        "web/node_modules/left-pad/README.md",
    ]
    folders = ["env2", "web/node_modules", ".venv/lib"]
    linked = ["docs/pad.md", "docs/vendor", "docs/vendor/left-pad/README.md"]
    for path in [*files, *folders, *linked]:
        with pytest.raises(ScopeError) as err:
            scope.resolve(path)
        assert err.value.rule == "environment", path
    for path in [*files, *folders]:
        with pytest.raises(ScopeError) as err:
            scope.resolve_as_written(path)
        assert err.value.rule == "environment", path
    for path in files:
        assert not scope.shows(path), path
    for path in [*files, "docs/pad.md"]:  # `allows` judges an index path's real path too
        assert not scope.allows(path), path
    for path in ("docs/guide.md", "web/notes.md", "web", "docs"):
        assert scope.resolve(path) == path


def test_a_folder_made_an_environment_later_is_refused_at_once(tmp_path: Path) -> None:
    """`resolve` looks again at each call; `shows` keeps only the verdicts of folders on
    disk, so one made a virtualenv after a path in it was judged is not taken for clean."""
    root = _project_with_environments(tmp_path / "repo")
    scope = scope_for(find_workspace(root), Settings())
    assert scope.resolve("tools/README.md") == "tools/README.md"
    assert scope.shows("later/README.md")
    write(root, {"tools/pyvenv.cfg": "home = /usr/bin\n", "later/pyvenv.cfg": "home = /usr\n"})
    with pytest.raises(ScopeError) as err:
        scope.resolve("tools/README.md")
    assert err.value.rule == "environment"
    assert not scope.shows("later/README.md")
