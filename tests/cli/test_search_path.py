"""`kenso-git search --path` takes a folder as a shell user writes it (`./docs`, `docs/`, an
absolute path, a path from the current folder) and says why an ignored folder or one outside
the repository can hold no hit, as the MCP `search` tool refuses them (r46, defect 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

BODY = "This page talks about apples in enough words to pass the minimum chunk size. " * 3
DOCS = {
    ".gitignore": "docs/build/\n",
    ".cursorignore": "docs/private/\n",
    "docs/alpha.md": doc("Alpha", BODY),
    "docs/guide/setup.md": doc("Setup", BODY),
    "notes/other.md": doc("Other", BODY),
    "docs/build/gen.md": doc("Generated", BODY),
    "docs/private/secret.md": doc("Secret", BODY),
}
UNDER_DOCS = ["docs/alpha.md", "docs/guide/setup.md"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(tmp_path_factory.mktemp("searchpath") / "repo", DOCS)
    proc = run_cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return root


def _paths(cwd: Path, *args: str) -> list[str]:
    proc = run_cli(cwd, "search", "apples", "--exhaustive", "--format", "json", *args)
    assert proc.returncode == 0, (args, proc.stderr)
    return [hit["path"] for hit in json.loads(proc.stdout)["results"]]


def test_the_cli_sees_no_ignored_doc_at_all(repo: Path) -> None:
    """.gitignore'd and .cursorignore'd docs are never indexed, for the CLI too."""
    assert _paths(repo) == [*UNDER_DOCS, "notes/other.md"]


@pytest.mark.parametrize("written", ["docs", "docs/", "./docs", "./docs/", "docs//", "ABS"])
def test_a_folder_is_taken_as_a_shell_user_writes_it(repo: Path, written: str) -> None:
    path = str(repo / "docs") if written == "ABS" else written
    assert _paths(repo, "--path", path) == UNDER_DOCS


@pytest.mark.parametrize(
    ("written", "found"),
    [
        (".", UNDER_DOCS),
        ("./", UNDER_DOCS),
        ("guide", ["docs/guide/setup.md"]),
        ("./guide/", ["docs/guide/setup.md"]),
        ("guide/setup.md", ["docs/guide/setup.md"]),
        ("../notes", ["notes/other.md"]),
        ("..", [*UNDER_DOCS, "notes/other.md"]),
        ("docs/guide", ["docs/guide/setup.md"]),  # a search result's repo-relative path
    ],
)
def test_a_path_from_a_subfolder_is_read_from_there(
    repo: Path, written: str, found: list[str]
) -> None:
    assert _paths(repo / "docs", "--path", written) == found


def test_a_path_from_a_subfolder_holds_at_a_revision_too(repo: Path) -> None:
    assert _paths(repo / "docs", "--path", "./guide", "--ref", "HEAD") == ["docs/guide/setup.md"]


@pytest.mark.parametrize(
    ("cwd", "written", "named"),
    [
        ("", "docs/build", "docs/build"),
        ("", "./docs/build/", "./docs/build/"),
        ("docs", "build", "build"),
        ("", "docs/private", "docs/private"),  # .cursorignore: no doc of it is indexed
        ("", "docs/build/gen.md", "docs/build/gen.md"),
    ],
)
def test_an_ignored_folder_is_an_error_not_an_empty_answer(
    repo: Path, cwd: str, written: str, named: str
) -> None:
    proc = run_cli(repo / cwd, "search", "apples", "--path", written)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"kenso-git: error: --path {named!r} is ignored"), proc.stderr
    assert ".gitignore" in first and ".cursorignore" in first, proc.stderr
    assert "holds no indexed doc" in first, proc.stderr
    assert "hint:" in proc.stderr


def test_an_ignored_folder_is_refused_at_a_revision_too(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples", "--path", "docs/build", "--ref", "HEAD")
    assert proc.returncode == 2, proc.stdout
    assert "--path 'docs/build' is ignored" in proc.stderr


@pytest.mark.parametrize(("cwd", "written"), [("", "OUT"), ("", ".."), ("docs", "../..")])
def test_a_path_outside_the_repository_is_a_usage_error_naming_it(
    repo: Path, cwd: str, written: str
) -> None:
    outside = repo.parent / "elsewhere"
    outside.mkdir(exist_ok=True)
    path = str(outside) if written == "OUT" else written
    proc = run_cli(repo / cwd, "search", "apples", "--path", path)
    assert proc.returncode == 2, proc.stdout
    assert f"kenso-git: error: --path {path!r} is outside the repository" in proc.stderr


def test_an_ignored_in_filter_is_refused_as_the_mcp_tool_refuses_it(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples in:docs/build", "--exhaustive")
    assert proc.returncode == 2, proc.stdout
    assert "in:'docs/build' is ignored" in proc.stderr


def test_a_plain_search_still_reads_in_as_a_word(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples in:docs/build")
    assert proc.returncode == 0, proc.stderr


def test_an_absolute_path_through_a_link_to_the_work_tree_is_inside(repo: Path) -> None:
    link = repo.parent / "repo-link"
    if not link.exists():
        link.symlink_to(repo, target_is_directory=True)
    assert _paths(repo, "--path", str(link / "docs" / "guide")) == ["docs/guide/setup.md"]


def test_from_outside_the_work_tree_a_relative_path_is_read_from_the_root(repo: Path) -> None:
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    db = str(repo / ".kenso" / "docs.db")
    assert _paths(elsewhere, "--db", db, "--path", "docs/guide") == ["docs/guide/setup.md"]
    assert _paths(elsewhere, "--db", db, "--path", str(repo / "notes")) == ["notes/other.md"]
