"""`KENSO_GIT_TIMEOUT` for the git commands that did not go through `gitrun`'s limit: the
last-commit walk of a sync (`git log --raw --diff-merges=combined`, streamed, whose own
deadline was checked only between reads, so a git that wrote nothing was never stopped) and
the `git cat-file --batch` of a `--ref` search (no limit at all). Both took the fake git's
whole sleep, with no word. They are now stopped at the limit (SIGTERM first) with the same
warning as every git command, and its hint fits the command: the `.gitignore` advice is for
the commands that match ignore patterns, not for a `git log`.

`git` on PATH is a script that sleeps when its arguments hold a marker, then runs the real
git: it fakes git's slowness, not the thing under test. On SIGTERM it notes it and exits.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest

from kenso_git.errors import GitError
from kenso_git.repo import history
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

DOC = "# Deploy guide\n\nThe deploy steps for the service, in enough words to index them.\n"
SLEEP_S = 60  # far past the limit: a command that is not stopped makes the test slow and fail


def _slow_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str) -> Path:
    """Put a `git` first on PATH that sleeps `SLEEP_S` before a command holding `marker`;
    return the file it notes a SIGTERM in. The limit is set to 1 s."""
    real, stopped = shutil.which("git"), tmp_path / "stopped.txt"
    fake = tmp_path / "slowbin" / "git"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        f'  if [ "$arg" = "{marker}" ]; then\n'
        f"    trap 'echo TERM >> \"{stopped}\"; kill $pid 2>/dev/null; exit 143' TERM\n"
        f"    sleep {SLEEP_S} & pid=$!\n"
        "    wait $pid\n"
        "    break\n"
        "  fi\n"
        "done\n"
        f'exec "{real}" "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KENSO_GIT_TIMEOUT", "1")
    return stopped


def test_a_git_log_past_its_limit_gets_a_hint_about_git_log_not_gitignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC})
    _slow_git(tmp_path, monkeypatch, "--oneline")
    with caplog.at_level(logging.WARNING), pytest.raises(GitError) as stopped:
        run_git(find_workspace(root), "log", "--oneline")
    hint = stopped.value.hint or ""
    assert ".gitignore" not in hint and "git status" not in hint
    assert "git log" in hint and "KENSO_GIT_TIMEOUT=<seconds>" in hint
    assert ".gitignore" not in caplog.text


def test_the_last_commit_walk_stops_a_silent_git_at_the_limit_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC})
    ws = find_workspace(root)
    wanted = history.paths_at(ws, "HEAD")
    stopped = _slow_git(tmp_path, monkeypatch, "--diff-merges=combined")

    with caplog.at_level(logging.WARNING):
        found = history.last_commits(ws, wanted)

    assert found == {}  # nothing found in time: left out, as the docstring says
    assert stopped.read_text() == "TERM\n"
    assert "kenso-git stopped `git log " in caplog.text and f" in {root}: " in caplog.text
    assert "did not finish within 1 s" in caplog.text


def test_a_sync_whose_dating_walk_timed_out_warns_indexes_and_dates_the_doc_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC, ".gitignore": ".kenso/\n"})
    assert run_cli(root, "ingest").returncode == 0
    write(root, {"docs/guide.md": DOC + "\nThe zanzibar option sets the port.\n"})
    git(root, "commit", "-qam", "zanzibar")
    stopped = _slow_git(tmp_path, monkeypatch, "--diff-merges=combined")

    synced = run_cli(root, "sync")

    assert synced.returncode == 0, synced.stderr
    assert stopped.read_text() == "TERM\n"
    assert "kenso-git stopped `git log " in synced.stderr
    assert f" in {root}: it did not finish within 1 s" in synced.stderr
    assert ".gitignore" not in synced.stderr
    monkeypatch.setenv("KENSO_QUERY_SYNC", "0")  # what the sync wrote, not a second sync
    (hit,) = json.loads(run_cli(root, "search", "zanzibar", "--json").stdout)
    assert hit["file_path"] == "docs/guide.md"
    assert hit.get("last_commit") is None  # not dated in time, and not called uncommitted
    assert "uncommitted" not in hit

    monkeypatch.delenv("KENSO_GIT_TIMEOUT")
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    git(root, "commit", "-q", "--allow-empty", "-m", "HEAD moves on")
    assert run_cli(root, "sync").returncode == 0
    (hit,) = json.loads(run_cli(root, "search", "zanzibar", "--json").stdout)
    assert hit["last_commit"]["subject"] == "zanzibar"  # dated by a later sync


def test_a_ref_search_whose_cat_file_timed_out_is_an_error_naming_the_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": DOC, ".gitignore": ".kenso/\n"})
    write(root, {"docs/guide.md": DOC + "\nThe zanzibar option sets the port.\n"})
    git(root, "commit", "-qam", "zanzibar")
    assert run_cli(root, "ingest").returncode == 0
    stopped = _slow_git(tmp_path, monkeypatch, "--batch")

    found = run_cli(root, "search", "deploy", "--ref", "HEAD~1")

    assert found.returncode == 1, (found.stdout, found.stderr)
    assert stopped.read_text() == "TERM\n"
    assert "kenso-git stopped `git cat-file --batch` in " in found.stderr
    assert "error: cannot read the docs at HEAD~1: git cat-file --batch did not finish" in (
        found.stderr
    )
    assert "KENSO_GIT_TIMEOUT=<seconds>" in found.stderr
    assert ".gitignore" not in found.stderr
