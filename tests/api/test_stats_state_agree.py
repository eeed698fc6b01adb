"""`stats` and `state` read one index and say the same about the docs differing from HEAD:
a committed doc kenso-git never indexes (a name with a percent escape) made `stats` report
uncommitted edits on a clean tree while `state` said none."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.triggers.githooks.indexdump import hook_env


def _differs(root: Path, command: str) -> object:
    proc = run_cli(root, command, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["worktree_differs"]


def test_a_clean_tree_holding_a_doc_never_indexed_differs_for_neither(tmp_path: Path) -> None:
    root = init_repo(
        tmp_path / "repo",
        {
            "a.md": doc("Alpha", "apples and orchards for a long while. " * 10),
            "b%41.md": doc("Percent", "a percent named file with words. " * 10),
        },
    )
    git(root, "checkout", "-q", "-b", "b")
    git(root, "rm", "-q", "b%41.md")
    git(root, "commit", "-qm", "rm")
    git(root, "checkout", "-q", "main")
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    assert run_cli(root, "hooks", "install").returncode == 0
    env = hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD="100")  # the hooks' syncs in the foreground
    for branch in ("b", "main"):
        subprocess.run(["git", "checkout", "-q", branch], cwd=root, env=env, check=True)
    assert git(root, "status", "--porcelain") == ""
    assert _differs(root, "stats") is False
    assert _differs(root, "state") is False
    text = run_cli(root, "stats")
    assert text.returncode == 0 and "differed" not in text.stdout, text.stdout


def test_a_deleted_doc_still_differs(tmp_path: Path) -> None:
    root = init_repo(
        tmp_path / "repo",
        {"a.md": doc("Alpha", "apples here. " * 10), "c.md": doc("Gamma", "cherries. " * 10)},
    )
    (root / "c.md").unlink()
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    assert _differs(root, "stats") is True
    assert _differs(root, "state") is True
