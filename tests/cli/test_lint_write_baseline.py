"""`kenso-git lint --write-baseline FILE` succeeds (exit 0) once the findings are recorded,
errors among them: a CI step that records a baseline failed with exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from kenso_git.errors import ExitCode
from tests.helpers import init_repo
from tests.helpers import run_cli

GOOD = "---\ntags: [a, b, c]\n---\n# A Good Document Title\n" + "Plenty of body text here. " * 4
BROKEN = "---\ntags: [a, b, c]\nrelates_to: docs/missing.md\n---\n# A Broken Link Doc\n" + (
    "Body text that is long enough for a document. " * 3
)


def test_writing_a_baseline_of_errors_exits_0_and_says_what_it_recorded(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": GOOD, "docs/broken.md": BROKEN})
    assert run_cli(root, "lint").returncode == ExitCode.FAILURE  # an error finding
    for extra in ((), ("--json",), ("--format", "sarif")):
        written = run_cli(root, "lint", "--write-baseline", "base.json", *extra)
        assert written.returncode == ExitCode.OK, written.stdout + written.stderr
        findings = json.loads((root / "base.json").read_text(encoding="utf-8"))["findings"]
        errors = sum(1 for f in findings if f["rule"] == "KS002")
        assert errors == 1
        assert written.stderr.startswith(f"kenso-git: recorded {len(findings)} findings (1 error, ")
        assert "in base.json; `--baseline base.json`" in written.stderr
    kept = run_cli(root, "lint", "--baseline", "base.json")
    assert kept.returncode == ExitCode.OK, kept.stdout
    assert "hidden by the baseline" in kept.stdout
    # a finding the baseline does not hold still fails the run
    (root / "docs" / "new.md").write_text(BROKEN.replace("missing", "gone"), encoding="utf-8")
    assert run_cli(root, "lint", "--baseline", "base.json").returncode == ExitCode.FAILURE


def test_lint_help_states_the_exit_code_of_write_baseline(tmp_path: Path) -> None:
    shown = run_cli(tmp_path, "lint", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    assert "Record current findings, errors included, and exit 0." in text
    assert "Exit codes: 0 ok, and whenever --write-baseline recorded the findings" in text
