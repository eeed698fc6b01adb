"""A `.md` file ingest skips as binary (NUL bytes, no byte-order mark: UTF-16 saved without
one, or not text at all) is a KS021 error of lint, never "0 files, all checks passed"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.lint.runner import BINARY_MESSAGE
from kenso_git.text.parse import looks_binary
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_fix import TARGET

WIDE = "# UTF16 doc\n\nThis document is saved as UTF-16 little endian without a byte order mark.\n"
PAYLOADS = {
    "u16le.md": WIDE.encode("utf-16-le"),
    "u16be.md": WIDE.encode("utf-16-be"),
    "u32le.md": WIDE.encode("utf-32-le"),
    "noise.md": bytes(range(256)) * 12,
    "bom16.md": WIDE.encode("utf-16"),  # a byte-order mark: read as text by both
    "latin.md": WIDE.replace("doc", "d\xe9j\xe0 vu").encode("latin-1"),  # decodes badly, no NUL
    "plain.md": WIDE.encode("utf-8"),
}


def test_lint_of_a_utf16_page_without_a_mark_fails_and_says_what_to_do(repo: Path) -> None:
    (repo / "u16.md").write_bytes(WIDE.encode("utf-16-le"))
    result = run(repo, "u16.md")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("kenso-git · lint 1 file\n"), result.stdout
    assert f"u16.md:1:1: KS021 {BINARY_MESSAGE} (invalid-encoding)\n" in result.stdout
    assert "all checks passed" not in result.stdout
    assert "re-save it as UTF-8" in BINARY_MESSAGE


def test_lint_and_ingest_agree_on_which_pages_are_binary(repo: Path) -> None:
    """The files lint reports as not text are exactly those ingest skips as binary, and
    those `text.parse.looks_binary` says are: one test, so the two cannot disagree."""
    for name, data in PAYLOADS.items():
        (repo / name).write_bytes(data)
    linted = run(repo, "--json")
    assert linted.returncode == 1, linted.stdout + linted.stderr
    report = json.loads(linted.stdout)["violations"]
    said_binary = {
        entry["file"]
        for entry in report
        for issue in entry["issues"]
        if issue["rule"] == "KS021" and issue["message"] == BINARY_MESSAGE
    }
    ingested = subprocess.run(
        [sys.executable, "-m", "kenso_git", "ingest", "--json", "--no-lint"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    files = json.loads(ingested.stdout)["ingest"]["files"]
    skipped = {f["path"] for f in files if "looks binary" in f.get("detail", "")}
    expected = {name for name, data in PAYLOADS.items() if looks_binary(data)}
    assert said_binary == skipped == expected == {"u16le.md", "u16be.md", "u32le.md", "noise.md"}


def test_a_binary_page_is_judged_beside_the_others_in_a_folder_lint(repo: Path) -> None:
    write(repo, {"docs/good.md": TARGET})
    (repo / "docs" / "b.md").write_bytes(bytes(range(256)) * 12)
    commit_all(repo)
    result = run(repo, "--format", "concise", "--select", "KS021", "docs/")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == f"docs/b.md:1:1: KS021 {BINARY_MESSAGE} (invalid-encoding)\n"
    assert "looks binary" not in result.stderr  # said once, as the finding


@pytest.mark.parametrize("off", [["--ignore", "KS021"], ["--select", "KS022"]])
def test_a_binary_page_lint_does_not_judge_is_said_not_linted(repo: Path, off: list[str]) -> None:
    (repo / "u16.md").write_bytes(WIDE.encode("utf-16-le"))
    result = run(repo, *off, "u16.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "u16.md: looks binary (NUL bytes), not Markdown, not linted" in result.stderr
    assert "lint 0 files" in result.stdout


def test_per_file_ignores_switch_the_binary_finding_off(repo: Path) -> None:
    write(repo, {"pyproject.toml": '[tool.kenso.per-file-ignores]\n"u16.md" = ["KS021"]\n'})
    (repo / "u16.md").write_bytes(WIDE.encode("utf-16-le"))
    result = run(repo, "u16.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "u16.md: looks binary (NUL bytes), not Markdown, not linted" in result.stderr
