"""`kenso-git ingest`'s lint quality summary (docs/getting-started.md, `ingest --help`): with
`--lint` it is printed even when no file was (re)indexed, by default only when one was, and
`--json` always carries a `lint` key (the summary, or null with `lint_skipped`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

UNCHANGED = "no file was (re)indexed; `kenso-git ingest --lint` lints the docs anyway"
BROKEN = "---\nrelates_to: docs/missing.md\n---\n# Broken Page\n\n" + "A page with a bad link. " * 8


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(
        tmp_path / "repo",
        {"docs/a.md": doc("Alpha Guide", "Alpha words. " * 20), "docs/b.md": BROKEN},
    )


def _ingest_json(root: Path, *flags: str) -> dict[str, Any]:
    proc = run_cli(root, "ingest", "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    shown: dict[str, Any] = json.loads(proc.stdout)
    return shown


def test_an_explicit_lint_prints_the_summary_when_nothing_changed(repo: Path) -> None:
    """`ingest --json --lint` gave `{"ingest": ...}` alone and `ingest --lint` no summary
    once every file was unchanged."""
    first = _ingest_json(repo)  # everything indexed: the summary, as before
    assert first["ingest"]["ingested"] == 2 and first["lint"]["files"] == 2
    again = _ingest_json(repo, "--lint")
    assert again["ingest"]["unchanged"] == 2
    assert again["lint"] == first["lint"]  # every doc linted again: the same summary
    assert "lint_skipped" not in again
    text = run_cli(repo, "ingest", "--lint")
    assert text.returncode == 0, text.stderr
    assert "Quality score" in text.stdout
    assert "no lint summary" not in text.stdout


def test_json_always_has_a_lint_key_and_says_why_it_is_null(repo: Path) -> None:
    assert "lint_skipped" not in _ingest_json(repo)
    unchanged = _ingest_json(repo)  # the default: nothing (re)indexed, nothing linted
    assert unchanged["lint"] is None
    assert unchanged["lint_skipped"] == UNCHANGED
    skipped = _ingest_json(repo, "--no-lint")
    assert (skipped["lint"], skipped["lint_skipped"]) == (None, "--no-lint")


def test_the_default_text_says_why_no_summary_follows(repo: Path) -> None:
    assert "Quality score" in run_cli(repo, "ingest").stdout
    quiet = run_cli(repo, "ingest")
    assert quiet.returncode == 0, quiet.stderr
    assert "Quality score" not in quiet.stdout
    assert quiet.stdout.rstrip().endswith(f"no lint summary: {UNCHANGED}")
    bare = run_cli(repo, "ingest", "--no-lint")
    assert "lint" not in bare.stdout.lower()


def test_ingest_help_states_when_the_summary_is_printed(repo: Path) -> None:
    shown = run_cli(repo, "ingest", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    assert "by default only when some file was (re)indexed; --lint prints it always" in text
    assert "`lint` is then null and `lint_skipped` says why" in text
