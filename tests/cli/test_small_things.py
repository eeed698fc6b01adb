"""Small things an outside user met: help that said more than watch logs, a --page-size
clamped silently, a `hooks install` hint outside git, `related` refusing a path from the
current folder, and KENSO_PORT failing a search that has no port."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kenso_git.cli.plaintext import PAGE_SIZES
from kenso_git.search.pagination import MAX_PAGE
from kenso_git.search.pagination import MIN_PAGE
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.index.test_reliability import cli

DOCS = {
    "docs/intro.md": doc("Intro", "See [the guide](guide.md) for apples. " * 5),
    "docs/guide.md": doc("Guide", "The guide talks about apples and orchards. " * 5),
}


def test_watch_help_says_it_logs_counts() -> None:
    proc = run_cli(Path.cwd(), "watch", "--help")
    assert proc.returncode == 0
    assert "the paths it looked at" not in proc.stdout
    assert "how many paths it looked at" in " ".join(proc.stdout.split())


def test_a_page_size_out_of_range_is_said(tmp_path: Path) -> None:
    assert (MIN_PAGE, MAX_PAGE) == PAGE_SIZES
    root = init_repo(tmp_path / "repo", DOCS)
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    proc = run_cli(root, "search", "apples", "--page-size", "99", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["page_size"] == 50
    assert "kenso-git: --page-size 99 is outside 1..50; showing 50" in proc.stderr
    related = run_cli(root, "related", "docs/intro.md", "--page-size", "0")
    assert related.returncode == 0, related.stderr
    assert "kenso-git: --page-size 0 is outside 1..50; showing 1" in related.stderr


def test_outside_git_the_no_index_hint_names_no_hooks(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = run_cli(plain, "search", "apples")
    assert proc.returncode == 3, proc.stderr
    assert "hooks install" not in proc.stderr
    assert "hint: run `kenso-git ingest` once" in proc.stderr
    repo = init_repo(tmp_path / "repo", DOCS)
    assert "hooks install" in run_cli(repo, "search", "apples").stderr


def test_related_takes_a_path_from_the_current_folder_and_a_repo_path(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    for path in ("intro.md", "docs/intro.md", "./intro.md"):
        proc = run_cli(root / "docs", "related", path, "--json")
        assert proc.returncode == 0, (path, proc.stderr)
        page = json.loads(proc.stdout)
        assert page["path"] == "docs/intro.md", path
        assert [hit["path"] for hit in page["results"]] == ["docs/guide.md"], path


def test_a_bad_port_fails_serve_over_http_not_a_search(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    env = {**os.environ, "KENSO_PORT": "abc"}
    found = cli(root, "search", "apples", env=env)
    assert found.returncode == 0 and "docs/guide.md" in found.stdout, found.stderr
    served = cli(root, "serve", "--transport", "http", env=env)
    assert served.returncode == 2
    assert "KENSO_PORT must be an integer, got 'abc'" in served.stderr
