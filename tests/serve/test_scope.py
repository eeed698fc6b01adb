from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.config import load_settings
from kenso_git.errors import ConfigError
from kenso_git.errors import ScopeError
from kenso_git.repo.scope import Scope
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from tests.serve.conftest import make_repo


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    """docs/ is the agent scope; symlinks lead outside the repo and out of the scope."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\ntop secret payment keys\n", encoding="utf-8")
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "out-dir").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "escape.md").symlink_to(outside / "secret.md")
    (root / "docs" / "peek").symlink_to(root / "private", target_is_directory=True)
    (root / "docs" / "to-private.md").symlink_to(root / "private" / "plan.md")
    (root / "docs" / "alias.md").symlink_to(root / "docs" / "billing.md")
    (root / "build").mkdir()
    (root / "build" / "out.md").write_text("# Built\n\nGenerated output.\n", encoding="utf-8")
    return root


def _scope(root: Path) -> Scope:
    ws = find_workspace(root)
    return scope_for(ws, load_settings(ws.root))


def _hostile(root: Path) -> list[tuple[object, str]]:
    outside = root.parent / "outside" / "secret.md"
    return [
        ("../etc/passwd", "parent-traversal"),
        ("docs/../../etc/passwd", "parent-traversal"),
        ("docs/..", "parent-traversal"),
        ("..", "parent-traversal"),
        ("docs/./../../outside/secret.md", "parent-traversal"),
        (f"{root}/../outside/secret.md", "parent-traversal"),
        ("/etc/passwd", "outside-root"),
        ("//etc/passwd", "outside-root"),
        (str(outside), "outside-root"),
        ("docs/deploy.md\x00.txt", "nul-byte"),
        ("\x00", "nul-byte"),
        ("docs/deploy.md\n", "control-character"),
        ("docs/\x1b[2Jdeploy.md", "control-character"),
        ("%2e%2e/etc/passwd", "percent-encoding"),
        ("docs/%2e%2e/%2e%2e/etc/passwd", "percent-encoding"),
        ("..%2f..%2fetc%2fpasswd", "percent-encoding"),
        ("%2Fetc%2Fpasswd", "percent-encoding"),
        ("docs%252f..%252f..%252fetc", "percent-encoding"),
        ("..\\..\\etc\\passwd", "backslash"),
        ("docs\\..\\..\\secret.md", "backslash"),
        ("~/.ssh/id_rsa", "home-expansion"),
        ("~root/.bashrc", "home-expansion"),
        ("link-out/secret.md", "outside-scope"),
        ("docs/out-dir/secret.md", "symlink-escape"),
        ("docs/escape.md", "symlink-escape"),
        ("docs/peek/plan.md", "symlink-escape"),
        ("docs/to-private.md", "symlink-escape"),
        (".git/config", "internal-dir"),
        (".kenso/docs.db", "internal-dir"),
        ("docs/../.kenso/http.token", "parent-traversal"),
        (".kenso/http.token", "internal-dir"),
        ("private/plan.md", "outside-scope"),
        (str(root / "private" / "plan.md"), "outside-scope"),
        ("ignored/notes.md", "outside-scope"),
        ("", "empty-path"),
        ("   ", "empty-path"),
        ("d" * 5000, "too-long"),
        (12345, "not-a-string"),
        (None, "not-a-string"),
        ("docs/deploy.md/", "not-a-folder"),  # was served as docs/deploy.md
        ("docs/deploy.md/./", "not-a-folder"),
        ("docs/alias.md/", "not-a-folder"),
    ]


def test_every_hostile_path_is_refused_with_the_rule_it_broke(hostile_repo: Path) -> None:
    scope = _scope(hostile_repo)
    cases = _hostile(hostile_repo)
    assert len(cases) >= 25
    outcomes = []
    for raw, rule in cases:
        try:
            got = scope.resolve(raw)
        except ScopeError as err:
            outcomes.append((raw, err.rule))
            assert rule in err.message or err.rule == "not-a-string", err.message
        else:
            outcomes.append((raw, f"ACCEPTED as {got}"))
    assert outcomes == [(raw, rule) for raw, rule in cases]


def test_ignored_files_are_refused_inside_the_scope(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "build").mkdir()
    (root / "build" / "out.md").write_text("# Built\n", encoding="utf-8")
    (root / "docs" / ".kensoignore").write_text("drafts/\n", encoding="utf-8")
    (root / "docs" / "drafts").mkdir()
    (root / "docs" / "drafts" / "wip.md").write_text("# WIP\n", encoding="utf-8")
    scope = _scope(root)
    for raw in ("ignored/notes.md", "build/out.md", "docs/drafts/wip.md", "./build/out.md"):
        with pytest.raises(ScopeError) as info:
            scope.resolve(raw)
        assert info.value.rule == "ignored", raw
        assert ".gitignore" in info.value.message


def test_paths_inside_the_scope_resolve_to_repo_relative_paths(hostile_repo: Path) -> None:
    scope = _scope(hostile_repo)
    assert scope.resolve("docs/deploy.md") == "docs/deploy.md"
    assert scope.resolve("./docs/deploy.md") == "docs/deploy.md"
    assert scope.resolve("docs//deploy.md") == "docs/deploy.md"
    assert scope.resolve(str(hostile_repo / "docs" / "deploy.md")) == "docs/deploy.md"
    assert scope.resolve("docs/alias.md") == "docs/alias.md"  # a link that stays in scope
    assert scope.resolve("docs/not-there.md") == "docs/not-there.md"


def test_the_whole_checkout_is_the_default_scope(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    scope = _scope(root)
    assert scope.rel_roots == (".",)
    assert scope.resolve("private/plan.md") == "private/plan.md"
    assert scope.allows("private/plan.md")
    assert not scope.allows("ignored/notes.md")


def test_result_filter_keeps_only_paths_inside_the_scope(hostile_repo: Path) -> None:
    scope = _scope(hostile_repo)
    assert scope.allows("docs/deploy.md")
    assert scope.allows("docs/sub/deeper.md")
    for path in (
        "private/plan.md",
        "docsx/deploy.md",  # a string-prefix check would let this through
        "ignored/notes.md",
        "../docs/deploy.md",
        "/docs/deploy.md",
        ".kenso/docs.db",
        "",
    ):
        assert not scope.allows(path), path


@pytest.mark.parametrize(
    "entries",
    [("../elsewhere",), ("/etc",), ("docs/../../x",), ("/",), ("",), ("   ",), ("docs", "/")],
)
def test_scoped_roots_outside_the_repository_stop_the_server(
    tmp_path: Path, entries: tuple[str, ...]
) -> None:
    root = make_repo(tmp_path / "repo", scoped=entries)
    with pytest.raises(ConfigError) as info:
        _scope(root)
    assert "agent-scoped-roots" in info.value.message


def test_a_scoped_root_that_is_a_symlink_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("handbook",))
    (tmp_path / "elsewhere").mkdir()
    (root / "handbook").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ConfigError) as info:
        _scope(root)
    assert "resolves outside" in info.value.message


def test_scope_check_uses_path_components_not_string_prefixes(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "docs-private").mkdir()
    (root / "docs-private" / "x.md").write_text("# X\n", encoding="utf-8")
    scope = _scope(root)
    with pytest.raises(ScopeError) as info:
        scope.resolve("docs-private/x.md")
    assert info.value.rule == "outside-scope"
    sibling = str(root) + "-evil/docs/x.md"
    os.makedirs(Path(sibling).parent, exist_ok=True)
    with pytest.raises(ScopeError) as info:
        scope.resolve(sibling)
    assert info.value.rule == "outside-root"


def test_a_symlink_out_of_the_repository_is_refused_in_the_default_scope(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (root / "link-out").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(ScopeError) as info:
        _scope(root).resolve("link-out/secret.md")
    assert info.value.rule == "symlink-escape"


def test_a_file_written_as_a_folder_is_refused_at_a_revision_too(hostile_repo: Path) -> None:
    scope = _scope(hostile_repo)
    with pytest.raises(ScopeError) as info:
        scope.resolve_as_written("docs/deploy.md/")
    assert info.value.rule == "not-a-folder"
    assert scope.resolve("docs/") == "docs"  # a folder may be written so
    assert scope.resolve_as_written("docs/") == "docs"
