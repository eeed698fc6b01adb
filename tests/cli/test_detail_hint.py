"""The `lint --detail` hint after `ingest docs/` or `lint docs/` names the same paths: the
bare command linted the whole repository (other files, another score, exit 1)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

DOCS = {
    "docs/a.md": doc("Alpha guide page", "Alpha text about apples and orchards. " * 10),
    "docs/b.md": "# Bad\n\n[x](missing.md)\n",
    "README.md": "# Stub\n",
}


def _hinted(text: str) -> str:
    hint = next(line for line in text.splitlines() if "--detail" in line)
    return hint.split("lint --detail", 1)[1].split("`", 1)[0]


def test_ingest_of_a_folder_hints_a_detail_lint_of_that_folder(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    proc = run_cli(root, "ingest", "docs/")
    assert proc.returncode == 0, proc.stderr
    assert _hinted(proc.stdout) == " docs"
    detail = run_cli(root, "lint", "--detail", "docs")
    assert "README.md" not in detail.stdout


def test_lint_of_a_folder_hints_a_detail_lint_of_that_folder(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {**DOCS, "my docs/c.md": "# C\n\n[y](nope.md)\n"})
    proc = run_cli(root, "lint", "docs/", "my docs")
    assert proc.returncode == 1, proc.stderr
    assert _hinted(proc.stdout) == " docs 'my docs'"
    whole = run_cli(root, "lint")
    assert _hinted(whole.stdout) == ""


def test_a_path_with_a_leading_dash_is_a_path_and_the_hint_puts_it_after_dashes(
    tmp_path: Path,
) -> None:
    """pre-commit appends file names with no `--`: `lint --staged -draft.md` was a usage
    error, and the hint `lint --detail -draft.md` could not be pasted."""
    root = init_repo(tmp_path / "repo", {**DOCS, "-draft.md": "# D\n\n[z](nope.md)\n"})
    proc = run_cli(root, "lint", "--staged", "-draft.md", "--select", "KS022")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _hinted(proc.stdout) == " --staged -- -draft.md"
    detail = run_cli(root, "lint", "--detail", "--staged", "--", "-draft.md")
    assert "-draft.md (score:" in detail.stdout, detail.stdout + detail.stderr
    typo = run_cli(root, "lint", "--detial", "-draft.md")
    assert typo.returncode == 2 and "No such option '--detial'" in typo.stderr
