"""`lint --json` and `ingest --json` are written as they are made (text.jsonout) and are
byte for byte what one `json.dumps(..., indent=2)` of the whole object wrote (#32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.cli.render import NO_LINT
from kenso_git.cli.render import ingest_json
from kenso_git.kb import KnowledgeBase
from kenso_git.lint.report import report_to_json
from kenso_git.lint.session import run_lint
from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity as fixed_git_identity  # autouse fixture
from tests.gitrepo import git
from tests.gitrepo import write

PAGES = {
    f"docs/p{n}.md": f"# Page {n} é “quoted”\n\nSee [gone](missing{n}.md) and `docs/nope{n}.py`.\n"
    for n in range(12)
} | {"docs/clean.md": "---\ntitle: Clean\ntags: [a]\n---\n# Clean\n\nFine words here.\n"}


def _in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    monkeypatch.chdir(repo)
    write(repo, PAGES)
    commit_all(repo, "pages")
    return repo


def test_lint_json_is_the_whole_object_dumped_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _in(tmp_path, monkeypatch)
    result = CliRunner().invoke(cli, ["lint", "--json", "."])
    assert result.exit_code in (0, 1), result.output
    report = run_lint([]).report
    assert result.stdout == json.dumps(report_to_json(report), indent=2) + "\n"
    assert json.loads(result.stdout)["violations"]


def test_ingest_json_is_the_whole_object_dumped_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _in(tmp_path, monkeypatch)
    result = CliRunner().invoke(cli, ["ingest", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert len(shown["ingest"]["files"]) == len(PAGES) and shown["lint"]["violations"]
    # the same object, held whole and dumped once, is the same text
    kb = KnowledgeBase.open(repo)
    again = kb.ingest(None)  # nothing changed: every file "unchanged"
    whole = ingest_json(".", again, NO_LINT)
    streamed = CliRunner().invoke(cli, ["ingest", "--json", "--no-lint"])
    assert streamed.stdout == json.dumps(whole, indent=2, ensure_ascii=False) + "\n"
