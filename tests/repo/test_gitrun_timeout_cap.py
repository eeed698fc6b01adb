"""`KENSO_GIT_TIMEOUT` past 2,147,483 s crashed every sync and search with "internal
error: OverflowError: timeout is too large": the seconds reached `poll()` as milliseconds
in a C int. A larger value now counts as the cap, 24 hours."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.repo.gitrun import MAX_TIMEOUT_S
from kenso_git.repo.gitrun import time_limit
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli


@pytest.mark.parametrize("value", ["1e9", "2147484", "99999999999999999999"])
def test_a_huge_timeout_still_lets_search_and_sync_run(tmp_path: Path, value: str) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "alphaword " * 20)})
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    (root / "docs" / "b.md").write_text(doc("Beta", "betaword " * 20), encoding="utf-8")
    env = {**os.environ, "KENSO_GIT_TIMEOUT": value}
    for args in (["search", "betaword"], ["sync"]):
        proc = subprocess.run(
            [sys.executable, "-m", "kenso_git", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (proc.returncode, proc.stderr) == (0, ""), args
    assert "docs/b.md" in run_cli(root, "search", "betaword", "--no-sync").stdout


def test_the_cap_is_a_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "1e9")
    assert time_limit(30) == MAX_TIMEOUT_S == 86400
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "120")
    assert time_limit(30) == 120
