from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from kenso_git.cli.lint_cmd import resolve_color
from tests.lint.helpers import write_tree

GOOD = "---\ntags: [a, b, c]\nrelates_to: docs/other.md\n---\n# A Good Document Title\n" + (
    "Plenty of body text for the good document. " * 3
)
OTHER = "---\ntags: [d, e, f]\n---\n# The Other Document\n" + "Other text that is long. " * 4
BROKEN = "---\ntags: [a, b, c]\nrelates_to: docs/missing.md\n---\n# A Broken Link Doc\n" + (
    "Body text that is long enough for a document. " * 3
)
SCHEMA = Path(__file__).parent / "sarif-schema-2.1.0.json"


def run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "kenso_git", "lint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environ,
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path, {"docs/good.md": GOOD, "docs/other.md": OTHER})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def test_clean_repo_exits_0_with_summary(repo: Path) -> None:
    result = run(repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("kenso-git · lint 2 files\n\nScore: ")
    assert "\x1b[" not in result.stdout


def test_error_finding_exits_1_and_is_located(repo: Path) -> None:
    write_tree(repo, {"docs/broken.md": BROKEN})
    result = run(repo, "docs/broken.md")
    assert result.returncode == 1
    assert 'docs/broken.md:3:13: KS002 relates_to target "docs/missing.md"' in result.stdout
    assert "lint 1 file\n" in result.stdout


def test_given_file_is_judged_against_whole_repository(repo: Path) -> None:
    result = run(repo, "docs/good.md", "--json")
    assert result.returncode == 0, result.stdout
    data = json.loads(result.stdout)
    assert data["files"] == 1
    rules = {i["rule"] for f in data["violations"] for i in f["issues"]}
    assert "KS002" not in rules and "KS012" not in rules


def test_missing_path_is_a_usage_error(repo: Path) -> None:
    result = run(repo, "nope.md")
    assert result.returncode == 2
    assert "path does not exist" in result.stderr


def test_a_named_file_that_is_not_markdown_is_said_not_linted(repo: Path) -> None:
    write_tree(repo, {"notes.txt": "plain text\n"})
    result = run(repo, "notes.txt", "docs/good.md")
    assert result.returncode == 0, result.stderr
    assert "notes.txt: not a Markdown file (.md, .markdown), not linted" in result.stderr
    assert "lint 1 file\n" in result.stdout


def test_detail_and_json_are_exclusive(repo: Path) -> None:
    assert run(repo, "--detail", "--json").returncode == 2


def test_json_shape_has_line_and_column(repo: Path) -> None:
    write_tree(repo, {"docs/broken.md": BROKEN})
    data = json.loads(run(repo, "--json").stdout)
    assert set(data) == {"score", "files", "summary", "violations"}
    issue = next(f for f in data["violations"] if f["file"] == "docs/broken.md")["issues"][0]
    assert issue == {
        "rule": "KS002",
        "severity": "error",
        "name": "broken-link",
        "message": 'relates_to target "docs/missing.md" does not exist',
        "line": 3,
        "column": 13,
    }


def test_sarif_validates_against_schema(repo: Path) -> None:
    write_tree(repo, {"docs/broken.md": BROKEN})
    result = run(repo, "--format", "sarif")
    assert result.returncode == 1
    log = json.loads(result.stdout)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
    (res,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "KS002"]
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 13}


def test_github_annotations(repo: Path) -> None:
    write_tree(repo, {"docs/broken.md": BROKEN})
    out = run(repo, "--format", "github").stdout.splitlines()
    assert (
        "::error file=docs/broken.md,line=3,col=13,title=KS002 broken-link::"
        'relates_to target "docs/missing.md" does not exist'
    ) in out


def test_baseline_hides_old_findings_across_line_shifts(repo: Path) -> None:
    write_tree(repo, {"docs/broken.md": BROKEN})
    assert run(repo, "--write-baseline", "base.json").returncode == 0  # recorded: a success
    shifted = BROKEN.replace("# A Broken", "\n\n# A Broken")
    write_tree(repo, {"docs/broken.md": shifted})
    result = run(repo, "--baseline", "base.json")
    assert result.returncode == 0, result.stdout
    assert "hidden by the baseline" in result.stdout
    write_tree(repo, {"docs/new.md": BROKEN.replace("missing", "gone")})
    assert run(repo, "--baseline", "base.json").returncode == 1


def test_write_baseline_never_overwrites_a_page_or_a_folder(repo: Path) -> None:
    """`--write-baseline docs/broken.md` (the page read as what to lint) replaced the page
    with the baseline's JSON; a folder gave a traceback. Both are usage errors now, and
    a baseline written before is written again."""
    write_tree(repo, {"docs/broken.md": BROKEN})
    page = repo / "docs" / "broken.md"
    for target in ("docs/broken.md", "docs"):
        result = run(repo, "--write-baseline", target)
        assert result.returncode == 2, result.stdout + result.stderr
        assert "is not a kenso-git baseline: not overwritten" in result.stderr
        assert "Traceback" not in result.stderr
    assert page.read_text(encoding="utf-8") == BROKEN
    assert run(repo, "--write-baseline", "base.json").returncode == 0
    assert run(repo, "--write-baseline", "base.json").returncode == 0  # its own file again


def test_bad_config_is_usage_error_naming_key_and_file(repo: Path) -> None:
    (repo / ".kenso.toml").write_text('fail-under = "high"\n', encoding="utf-8")
    result = run(repo)
    assert result.returncode == 2
    assert ".kenso.toml" in result.stderr and "fail-under" in result.stderr


def test_fail_under_fails_low_scores(repo: Path) -> None:
    write_tree(repo, {"docs/untagged.md": "# Untagged Page Title\n" + "text " * 20})
    assert run(repo, "--fail-under", "50").returncode == 0
    assert run(repo, "--fail-under", "100").returncode == 1


def test_color_always_and_force_color(repo: Path) -> None:
    write_tree(repo, {"docs/untagged.md": "# Untagged Page Title\n" + "text " * 20})
    assert "\x1b[" in run(repo, "--color", "always").stdout
    assert "\x1b[" in run(repo, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run(repo, "--json", "--color", "always").stdout


def test_color_resolution_precedence() -> None:
    assert resolve_color("never", isatty=True, environ={"FORCE_COLOR": "1"}) is False
    assert (
        resolve_color("auto", isatty=True, environ={"NO_COLOR": "1", "FORCE_COLOR": "1"}) is False
    )
    assert resolve_color("auto", isatty=False, environ={"FORCE_COLOR": "1"}) is True
    assert resolve_color("auto", isatty=True, environ={"TERM": "dumb"}) is False
    assert resolve_color("auto", isatty=True, environ={"TERM": "xterm"}) is True


def test_frontmatter_that_is_not_valid_yaml_fails_the_run_at_its_line(repo: Path) -> None:
    """#26: the salvaged tag `{a: b` reached agents while lint said nothing."""
    write_tree(
        repo, {"docs/flow.md": "---\ntags: {a: b\ntitle: Flow\n---\n" + GOOD[GOOD.index("#") :]}
    )
    result = run(repo, "docs/flow.md")
    assert result.returncode == 1, result.stdout
    line = next(x for x in result.stdout.splitlines() if x.startswith("docs/flow.md:"))
    assert line.startswith("docs/flow.md:3:1: KS020 frontmatter is not valid yaml"), line
    assert line.endswith("(invalid-frontmatter)")


def test_text_that_is_not_utf8_fails_the_run_at_its_line_and_column(repo: Path) -> None:
    latin = (GOOD + "\nCaf\xe9 au lait, as an old editor saved it.\n").encode("latin-1")
    (repo / "docs" / "latin.md").write_bytes(latin)
    result = run(repo, "docs/latin.md", "--json")
    assert result.returncode == 1, result.stdout
    issues = json.loads(result.stdout)["violations"][0]["issues"]
    bad = [i for i in issues if i["rule"] == "KS021"]
    line = latin.split(b"\n").index(b"Caf\xe9 au lait, as an old editor saved it.") + 1
    assert [(i["line"], i["column"], i["severity"]) for i in bad] == [(line, 4, "error")]
    assert "not valid utf-8 (byte 0xe9 at column 4)" in bad[0]["message"]


def test_lint_of_a_file_speaks_of_that_file_only(repo: Path) -> None:
    (repo / "docs" / "bad").mkdir()
    (repo / "docs" / "bad" / "binary.md").write_bytes(b"abc\x00def")
    result = run(repo, "docs/good.md")
    assert result.returncode == 0
    assert "binary" not in result.stderr, result.stderr
    whole = run(repo)  # the folder holding it still hears of it (a KS021 error)
    assert "docs/bad/binary.md:1:1: KS021 not text: NUL bytes" in whole.stdout
    itself = run(repo, "docs/bad/binary.md")
    assert "docs/bad/binary.md:1:1: KS021 not text: NUL bytes" in itself.stdout


def test_a_named_file_the_ignore_rules_hide_is_said_not_linted(repo: Path) -> None:
    """`lint build/gen.md` (ignored) printed "0 files ... all checks passed" and nothing
    else, as if the file had been linted."""
    write_tree(
        repo,
        {
            ".gitignore": "build/\n",
            "build/gen.md": "# Gen\n\nA [dead](nowhere.md) link in a generated page.\n",
        },
    )
    result = run(repo, "build/gen.md")
    assert result.returncode == 0
    assert "build/gen.md: ignored by .gitignore" in result.stderr
    assert "not linted" in result.stderr
