from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.cli.main import main
from kenso_git.githooks import install
from kenso_git.githooks import shim
from kenso_git.githooks.shim import HOOK_NAMES
from kenso_git.repo.git import REWRITING_VERBS
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

REPO_ROOT = Path(__file__).resolve().parents[2]
USER_HOOK = '#!/bin/sh\necho user-hook "$@" >> user-hook.log\nexit 3\n'


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(folder.iterdir())
        if not p.name.endswith(".sample")
    }


def test_top_level_hooks_folder_is_the_rendered_template() -> None:
    top = REPO_ROOT / "hooks"
    assert sorted(p.name for p in top.iterdir()) == sorted(HOOK_NAMES)
    for name in HOOK_NAMES:
        assert (top / name).read_text(encoding="utf-8") == shim.render(name), (
            "hooks/ is stale: regenerate with `python -m kenso_git.githooks.shim hooks`"
        )
        assert (top / name).stat().st_mode & stat.S_IXUSR
        text = (top / name).read_text(encoding="utf-8")
        assert install.MARKER in text
        assert install.EXE_LINE + "\n" in text
        assert text.replace(f"hook={name}\n", "hook=post-checkout\n") == (
            top / "post-checkout"
        ).read_text(encoding="utf-8")


def test_shim_reads_the_rebase_verbs_the_python_side_knows() -> None:
    text = shim.render("post-commit")
    assert "@" not in text.replace("$@", "")
    assert " | ".join(REWRITING_VERBS) + ") return 0" in text


def test_install_writes_five_executable_shims_and_is_idempotent(repo: Path) -> None:
    ws = find_workspace(repo)
    report = install.install(ws, exe="/opt/kenso git/bin/kenso-git")
    assert report.owner is None
    assert len(report.changed) == 5
    folder = repo / ".git" / "hooks"
    for name in HOOK_NAMES:
        text = (folder / name).read_text(encoding="utf-8")
        assert "KENSO_GIT_EXE='/opt/kenso git/bin/kenso-git'" in text
        assert (folder / name).stat().st_mode & stat.S_IXUSR
    before = snapshot(folder)
    again = install.install(ws, exe="/opt/kenso git/bin/kenso-git")
    assert again.changed == ()
    assert snapshot(folder) == before
    assert {h.state for h in install.status(ws).hooks} == {install.INSTALLED}


def test_existing_hook_is_chained_still_runs_and_is_restored(repo: Path) -> None:
    folder = repo / ".git" / "hooks"
    (folder / "post-commit").write_text(USER_HOOK, encoding="utf-8")
    (folder / "post-commit").chmod(0o751)
    before = snapshot(folder)
    ws = find_workspace(repo)
    install.install(ws, exe="/nonexistent/kenso-git")
    assert (folder / "post-commit.kenso-chained").read_text(encoding="utf-8") == USER_HOOK
    post_commit = next(h for h in install.status(ws).hooks if h.name == "post-commit")
    assert post_commit.chained
    write(repo, {"a.md": "# A\n"})
    commit_all(repo)
    assert (repo / "user-hook.log").read_text(encoding="utf-8") == "user-hook\n"
    report = install.uninstall(ws)
    assert len(report.changed) == 5
    assert snapshot(folder) == before


def test_uninstall_leaves_foreign_hooks_alone(repo: Path) -> None:
    folder = repo / ".git" / "hooks"
    (folder / "post-merge").write_text(USER_HOOK, encoding="utf-8")
    ws = find_workspace(repo)
    report = install.uninstall(ws)
    assert report.changed == ()
    assert (folder / "post-merge").read_text(encoding="utf-8") == USER_HOOK


def test_relative_core_hooks_path_is_honoured(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".githooks")
    ws = find_workspace(repo)
    report = install.install(ws, exe="/x/kenso-git")
    assert report.hooks_dir == repo / ".githooks"
    assert all((repo / ".githooks" / name).is_file() for name in HOOK_NAMES)
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()


def test_linked_worktrees_share_the_common_hooks(repo: Path, tmp_path: Path) -> None:
    write(repo, {"a.md": "# A\n"})
    commit_all(repo)
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    report = install.install(find_workspace(linked), exe="/x/kenso-git")
    assert report.hooks_dir == (repo / ".git" / "hooks").resolve()
    assert (repo / ".git" / "hooks" / "post-checkout").is_file()


def test_husky_folder_is_not_written_and_a_snippet_is_given(repo: Path) -> None:
    (repo / ".husky" / "_").mkdir(parents=True)
    git(repo, "config", "core.hooksPath", ".husky/_")
    before = snapshot(repo / ".husky" / "_")
    report = install.install(find_workspace(repo), exe="/x/kenso-git")
    assert report.owner == "husky"
    assert report.changed == ()
    assert snapshot(repo / ".husky" / "_") == before
    assert report.snippet is not None
    assert '.husky/post-checkout:  kenso-git hook post-checkout "$@"' in report.snippet


def test_lefthook_config_means_a_snippet_instead(repo: Path) -> None:
    (repo / "lefthook.yml").write_text("pre-commit:\n  commands: {}\n", encoding="utf-8")
    report = install.install(find_workspace(repo), exe="/x/kenso-git")
    assert report.owner == "lefthook"
    assert report.snippet is not None
    assert "run: kenso-git hook post-merge {0}" in report.snippet
    assert not (repo / ".git" / "hooks" / "post-merge").exists()


def test_pre_commit_hook_files_are_left_to_pre_commit(repo: Path) -> None:
    folder = repo / ".git" / "hooks"
    generated = "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"
    (folder / "post-checkout").write_text(generated, encoding="utf-8")
    report = install.install(find_workspace(repo), exe="/x/kenso-git")
    assert report.owner == "pre-commit"
    assert report.snippet is not None
    assert "entry: kenso-git hook pre-commit-framework" in report.snippet
    assert (folder / "post-checkout").read_text(encoding="utf-8") == generated
    assert (folder / "post-merge").is_file()
    states = {h.name: h.state for h in install.status(find_workspace(repo)).hooks}
    assert states["post-checkout"] == install.PRE_COMMIT
    assert states["post-merge"] == install.INSTALLED


def test_cli_install_status_uninstall(repo: Path, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    runner = CliRunner()
    result = runner.invoke(cli, ["hooks", "install"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["hooks", "status", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["index"] == "missing"
    assert {h["state"] for h in data["hooks"].values()} == {"installed"}
    result = runner.invoke(cli, ["hooks", "status"])
    assert "post-index-change  installed" in result.stdout
    assert "index: none yet" in result.stdout
    result = runner.invoke(cli, ["hooks", "uninstall"])
    assert result.exit_code == 0
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()


def test_cli_hooks_outside_git_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["hooks", "status"])
    assert exit_info.value.code == 2
    assert "not inside a git repository" in capsys.readouterr().err
