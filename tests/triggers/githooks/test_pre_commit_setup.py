"""A pre-commit-only setup: the kenso-reindex hook, `hooks status`, lint's advice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.triggers.githooks import runner as hooks
from kenso_git.triggers.githooks.state import PRE_COMMIT_MARK
from tests.gitrepo import commit_all
from tests.gitrepo import write

DOC = "# Guide\n\nEnough words here to make this file a real document for the index.\n"
CONFIG = """repos:
-   repo: local
    hooks:
    -   id: kenso-reindex  # keeps the index fresh
        name: kenso-git reindex
        entry: kenso-git hook pre-commit-framework
        language: system
        always_run: true
        pass_filenames: false
        stages: [post-checkout, post-merge, post-rewrite, post-commit]
"""


def test_kenso_reindex_without_an_index_builds_the_first_one(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, {"docs/guide.md": DOC})
    commit_all(repo)
    monkeypatch.setenv("PRE_COMMIT_CHECKOUT_TYPE", "1")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "0" * 40)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "HEAD")
    decided = hooks.run_hook("pre-commit-framework", [], start=repo)
    assert decided.action == hooks.Mode.FOREGROUND
    assert (repo / ".kenso" / "docs.db").is_file()
    # A git hook shim (installed by `hooks install`) still waits for an explicit ingest.
    other = repo.parent / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    plain = hooks.run_hook("post-commit", [], start=other)
    assert plain.action == hooks.Mode.SKIP and not (other / ".kenso").exists()


def test_hooks_status_sees_kenso_reindex_in_the_pre_commit_config(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / ".pre-commit-config.yaml").write_text(CONFIG, encoding="utf-8")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/usr/bin/env bash\n# {PRE_COMMIT_MARK}\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    shown = CliRunner().invoke(cli, ["hooks", "status"])
    assert shown.exit_code == 0, shown.output
    assert "add the kenso-reindex hook" not in shown.output
    assert "runs kenso-reindex" in shown.output
    assert "pre-commit install --hook-type post-merge" in shown.output
    as_json = CliRunner().invoke(cli, ["hooks", "status", "--json"])
    assert '"pre_commit_reindex": true' in as_json.output


def test_lint_advice_names_a_command_that_runs_without_kenso_git_on_path(repo: Path) -> None:
    write(repo, {"docs/a.md": "# A\n\nshort\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "lint", "docs/"],
        cwd=repo,
        env={"PATH": "/usr/bin:/bin", "HOME": str(repo)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "lint --detail" in proc.stdout, proc.stdout + proc.stderr
    assert "`kenso-git lint --detail" not in proc.stdout
    # the paths linted are named too (`lint --detail` alone would lint the whole repository)
    assert f"`{Path(sys.executable).parent / 'kenso-git'} lint --detail docs`" in proc.stdout
