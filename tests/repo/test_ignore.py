from __future__ import annotations

from pathlib import Path

from kenso_git.config import Settings
from kenso_git.repo.discover import discover
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.workspace import find_workspace
from tests.helpers import init_repo
from tests.helpers import write

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"


def _paths(root: Path, settings: Settings | None = None) -> list[str]:
    ws = find_workspace(root)
    return [sf.path for sf in discover(ws, settings or Settings())]


def test_nested_gitignore_applies_relative_to_its_folder(tmp_path):
    init_repo(tmp_path, commit=False)
    write(
        tmp_path,
        {
            "a.md": DOC,
            "docs/b.md": DOC,
            "docs/draft.md": DOC,
            "docs/.gitignore": "draft.md\n",
            "other/draft.md": DOC,
        },
    )
    assert _paths(tmp_path) == ["a.md", "docs/b.md", "other/draft.md"]


def test_negation_re_includes_a_file_but_not_inside_an_excluded_folder(tmp_path):
    init_repo(tmp_path, commit=False)
    write(
        tmp_path,
        {
            ".gitignore": "*.md\n!keep.md\nbuild/\n!build/keep.md\n",
            "keep.md": DOC,
            "drop.md": DOC,
            "build/keep.md": DOC,
        },
    )
    assert _paths(tmp_path) == ["keep.md"]


def test_cursorignore_and_kensoignore_and_info_exclude_are_honoured(tmp_path):
    init_repo(tmp_path, commit=False)
    write(
        tmp_path,
        {
            ".cursorignore": "secret/\n",
            ".kensoignore": "/CHANGELOG.md\n",
            "secret/x.md": DOC,
            "CHANGELOG.md": DOC,
            "sub/CHANGELOG.md": DOC,
            "local.md": DOC,
        },
    )
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("local.md\n", encoding="utf-8")
    assert _paths(tmp_path) == ["sub/CHANGELOG.md"]


def test_core_excludes_file_from_the_global_config_is_honoured(tmp_path, monkeypatch):
    excludes = tmp_path / "global-ignore"
    excludes.write_text("scratch.md\n", encoding="utf-8")
    cfg = tmp_path / "gitconfig"
    cfg.write_text(f"[core]\n\texcludesFile = {excludes}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    repo = init_repo(tmp_path / "repo", commit=False)
    write(repo, {"scratch.md": DOC, "kept.md": DOC})
    assert _paths(repo) == ["kept.md"]


def test_directory_only_pattern_does_not_hide_a_file_of_that_name(tmp_path):
    init_repo(tmp_path, commit=False)
    write(tmp_path, {".gitignore": "notes/\n", "notes/a.md": DOC, "x/notes": "file", "b.md": DOC})
    assert _paths(tmp_path) == ["b.md"]
    rules = IgnoreRules.for_workspace(find_workspace(tmp_path), Settings())
    assert rules.is_ignored("notes/a.md")
    assert not rules.is_ignored("x/notes")


def test_is_ignored_checks_every_parent_folder(tmp_path):
    init_repo(tmp_path, commit=False)
    write(tmp_path, {".gitignore": "vendor/\n!vendor/keep.md\n"})
    rules = IgnoreRules.for_workspace(find_workspace(tmp_path), Settings())
    assert rules.is_ignored("vendor/keep.md")
    assert rules.is_ignored(".git/config")
    assert not rules.is_ignored("docs/keep.md")


def test_settings_exclude_patterns_apply(tmp_path):
    init_repo(tmp_path, commit=False)
    write(tmp_path, {"a.md": DOC, "gen/b.md": DOC})
    assert _paths(tmp_path, Settings(exclude=("gen/",))) == ["a.md"]


def test_gitignore_is_honoured_outside_a_repository_too(tmp_path):
    write(tmp_path, {".gitignore": "skip.md\n", "skip.md": DOC, "keep.md": DOC})
    assert _paths(tmp_path) == ["keep.md"]
