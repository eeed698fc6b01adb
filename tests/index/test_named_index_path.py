"""An index named by `--db` or `KENSO_DATABASE_URL`: a URL is refused (it made a folder
named `sqlite:` among the docs), and a new index folder inside the work tree is kept out of
git as the default `.kenso/` is; an index put among tracked files is said to be seen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.index.test_reliability import cli


@pytest.fixture
def sub(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {"docs/sub/a.md": doc("Alpha", "apples here. " * 20)})
    return root / "docs" / "sub"


@pytest.mark.parametrize("url", ["sqlite:///tmp/kenso-x.db", "file:///tmp/kenso-x.db"])
def test_a_url_in_kenso_database_url_is_refused_and_makes_nothing(sub: Path, url: str) -> None:
    proc = cli(sub, "ingest", "--no-lint", env={**os.environ, "KENSO_DATABASE_URL": url})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"kenso-git: error: KENSO_DATABASE_URL takes a file path, not a URL: {url!r}",
        "  hint: name the database file itself, e.g. KENSO_DATABASE_URL=/path/to/docs.db",
    ]
    assert sorted(p.name for p in sub.iterdir()) == ["a.md"]


def test_a_url_given_to_db_is_refused(sub: Path) -> None:
    proc = cli(sub, "search", "apples", "--db", "sqlite:///x.db")
    assert proc.returncode == 2, proc.stderr
    assert "--db takes a file path, not a URL: 'sqlite:///x.db'" in proc.stderr


def test_an_index_folder_made_in_a_subfolder_is_kept_out_of_git(sub: Path) -> None:
    proc = cli(sub, "ingest", "--no-lint", "--db", ".kenso/docs.db")
    assert proc.returncode == 0, proc.stderr
    assert (sub / ".kenso" / "docs.db").is_file()
    assert git(sub, "status", "--porcelain", "--untracked-files=all") == ""
    made = cli(sub, "ingest", "--no-lint", "--db", "own/docs.db")  # a folder made for it
    assert made.returncode == 0, made.stderr
    assert git(sub, "status", "--porcelain", "--untracked-files=all") == ""
    assert "git sees" not in proc.stderr + made.stderr


def test_an_index_among_the_docs_is_said_to_be_seen_by_git(sub: Path) -> None:
    env = {**os.environ, "KENSO_DATABASE_URL": "rel.db"}
    proc = cli(sub, "ingest", "--no-lint", env=env)
    assert proc.returncode == 0, proc.stderr
    assert (
        "kenso-git: warning: the index docs/sub/rel.db and its companion files sit among the "
        "work tree's files, where git sees them" in proc.stderr
    )
