"""`connect --write` keeps a project file's original beside it, git-ignored: under
`.kenso/backup/` the docs' own `rm -rf .kenso` recovery deleted the user's only copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli

ORIGINAL = '{"mcpServers": {"other": {"command": "x"}}}\n'


def test_the_original_survives_removing_the_index_folder(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"a.md": doc("Alpha"), ".mcp.json": ORIGINAL})
    proc = run_cli(root, "connect", "claude-code", "--write")
    assert proc.returncode == 0, proc.stderr
    kept = root / ".mcp.json.kenso-git.bak"
    assert f"(the original is kept in {kept})" in proc.stdout
    shutil.rmtree(root / ".kenso", ignore_errors=True)  # the documented recovery
    assert kept.read_text(encoding="utf-8") == ORIGINAL
    assert git(root, "status", "--porcelain", "--untracked-files=all") == " M .mcp.json\n"


def test_an_original_kept_by_an_earlier_version_is_moved_beside_the_file(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"a.md": doc("Alpha"), ".mcp.json": ORIGINAL})
    old = root / ".kenso" / "backup" / ".mcp.json.bak"
    old.parent.mkdir(parents=True)
    old.write_text(ORIGINAL, encoding="utf-8")
    mine = json.loads(ORIGINAL) | {"note": "already rewritten once"}
    (root / ".mcp.json").write_text(json.dumps(mine), encoding="utf-8")
    proc = run_cli(root, "connect", "claude-code", "--write")
    assert proc.returncode == 0, proc.stderr
    assert (root / ".mcp.json.kenso-git.bak").read_text(encoding="utf-8") == ORIGINAL
    assert not old.exists()
    assert not (root / ".kenso" / "backup").exists()  # the folder it left empty goes too
    kept = root / ".mcp.json.kenso-git.bak"
    assert f"(the original is kept in {kept})" in proc.stdout  # where it went is said
