"""`kenso-git state` says where the query-time check's watch stands (index/quiet.py): a
one-shot command never arms one of its own, so it says so, or what turns it off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.index import quiet
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

EXE = [sys.executable, "-m", "kenso_git"]


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EXE, "state", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("cli") / "repo")
    ingest(root)
    return root


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_state_says_a_one_shot_command_arms_no_watch(repo: Path) -> None:
    proc = run(repo, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["query_watch"] == {
        "state": "off",
        "reason": quiet.ONE_SHOT,
        "folders": 0,
    }
    text = run(repo)
    assert text.returncode == 0, text.stderr
    assert f"query_watch: off ({quiet.ONE_SHOT})\n" in text.stdout


@pytest.mark.parametrize(
    ("variable", "said"), [("KENSO_QUERY_WATCH", "OFF_SETTING"), ("KENSO_QUERY_SYNC", "OFF_SYNC")]
)
def test_state_names_the_setting_that_turns_it_off(repo: Path, variable: str, said: str) -> None:
    proc = run(repo, "--json", **{variable: "0"})
    assert proc.returncode == 0, proc.stderr
    reason = getattr(quiet, said)
    assert json.loads(proc.stdout)["query_watch"] == {
        "state": "off",
        "reason": reason,
        "folders": 0,
    }
    assert f"query_watch: off ({reason})\n" in run(repo, **{variable: "0"}).stdout
