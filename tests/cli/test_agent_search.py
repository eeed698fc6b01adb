"""`kenso-git search` with the agent surface's flags, and `kenso-git state`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.entry import parse_search_args
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

EXE = [sys.executable, "-m", "kenso_git"]


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EXE, *args], cwd=root, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("cli") / "repo")
    ingest(root)
    return root


def test_the_fast_path_leaves_agent_flags_to_click() -> None:
    assert parse_search_args(["payment", "--json"]) is not None
    for flag in (["--path", "docs"], ["--exhaustive"], ["--format", "tsv"], ["--since", "7d"]):
        assert parse_search_args(["payment", *flag]) is None


def test_tsv_prints_path_score_snippet_per_hit(repo: Path) -> None:
    proc = run(repo, "search", "payment", "--path", "docs", "--exhaustive", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [r[0] for r in rows] == ["docs/billing.md", "docs/deploy.md"]
    assert all(len(r) == 3 and float(r[1]) >= 0 and r[2] for r in rows)


def test_json_pages_follow_the_cursor(repo: Path) -> None:
    first = json.loads(run(repo, "search", "payment", "--page-size", "2", "--json").stdout)
    assert first["returned"] == 2 and first["has_more"] and first["total"] == 3
    rest = run(repo, "search", "payment", "--page-size", "2", "--cursor", first["next_cursor"])
    assert rest.returncode == 0, rest.stderr
    assert rest.stdout.splitlines()[-1] == "1 of 3 hits (ranked)"
    bad = run(repo, "search", "size:big", "--tag", "deploy")
    assert bad.returncode == 2 and "'size:big' at column 1" in bad.stderr


def test_state_json_is_the_index_state_payload(repo: Path) -> None:
    proc = run(repo, "state", "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["documents"] == 3 and payload["scoped_roots"] == ["."]
    assert run(repo, "state").stdout.startswith("documents: 3\n")
    assert run(repo.parent, "state", "--json").returncode == 3


def test_limit_is_the_page_size_of_an_agent_search(repo: Path) -> None:
    # `-n 1` with `--path` used to be ignored: a page of every hit came back
    proc = run(repo, "search", "payment", "--path", "docs", "-n", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    page = json.loads(proc.stdout)
    assert page["returned"] == 1 and page["has_more"] and page["next_cursor"]
    same = run(repo, "search", "payment", "--path", "docs", "-n", "2", "--page-size", "2")
    assert same.returncode == 0 and same.stdout.splitlines()[-1] == "2 of 2 hits (ranked)"
    both = run(repo, "search", "payment", "--path", "docs", "-n", "1", "--page-size", "2")
    assert both.returncode == 2
    assert "--limit 1" in both.stderr and "--page-size 2" in both.stderr
