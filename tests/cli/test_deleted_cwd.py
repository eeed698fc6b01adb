"""A command run from a folder deleted under it (`rm -rf` in another terminal) said
"internal error: FileNotFoundError ... please report it": a user's situation, not a bug.
It is now one usage error saying so, exit 2."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo

GONE = (
    "kenso-git: error: the current folder no longer exists\n"
    "  hint: cd to your repository and run the command again\n"
)


@pytest.mark.parametrize(
    "args",
    [["search", "alphaword"], ["sync"], ["stats"], ["state"], ["ingest"], ["hooks", "status"]],
    ids=" ".join,
)
def test_a_deleted_current_folder_is_one_usage_error(tmp_path: Path, args: list[str]) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha")})
    gone = root / "docs" / "gone"
    gone.mkdir()
    command = shlex.join([sys.executable, "-m", "kenso_git", *args])
    proc = subprocess.run(
        ["sh", "-c", f'cd {shlex.quote(str(gone))} && rmdir "$PWD" && exec {command}'],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (2, GONE)
