"""`lint --fix` and `--diff` (#30): the fixes the path rules attach, applied in a real git
repository, atomically per file, only where the text they replace still stands."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.lint.fix import apply_edits
from kenso_git.lint.model import Edit
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

TARGET = "# Payment Retries\n\n## Backoff\n\n" + "Failed card payments are retried. " * 8 + "\n"
GUIDE = (
    "---\nrelates_to:\n  - old.md\n---\n# Guide\n\n"
    "Read [the retries](old.md#backoff) and ![chart](../assets/Chart.svg).\n"
    "The code lives in `src/tool.py` and [the top](#Guide).\n"
)


@pytest.fixture
def moved(repo: Path) -> Path:
    """docs/old.md renamed to docs/payments/retries.md; docs/guide.md still links to it."""
    write(
        repo,
        {
            "docs/old.md": TARGET,
            "docs/guide.md": GUIDE,
            "assets/chart.svg": "<svg/>\n",
            "src/tool.py": "x = 1\n" * 20,
        },
    )
    commit_all(repo, "add")
    (repo / "docs" / "payments").mkdir()
    git(repo, "mv", "docs/old.md", "docs/payments/retries.md")
    git(repo, "mv", "src/tool.py", "src/retry_tool.py")
    commit_all(repo, "move the retries page")
    return repo


def test_apply_edits_replaces_only_text_that_still_stands() -> None:
    text = "\ufeffa [x](old.md) and [y](old.md)\r\nline two old.md\r\n"
    edits = [
        Edit(1, 7, "old.md", "new.md"),
        Edit(1, 23, "old.md", "new.md"),
        Edit(2, 10, "old.md", "new.md"),
        Edit(2, 1, "gone", "x"),  # not there any more: left alone
    ]
    fixed, applied = apply_edits(text, edits)
    assert fixed == "\ufeffa [x](new.md) and [y](new.md)\r\nline two new.md\r\n"
    assert applied == 3


def test_apply_edits_skips_an_edit_overlapping_one_taken() -> None:
    fixed, applied = apply_edits("abcdef\n", [Edit(1, 1, "abcd", "X"), Edit(1, 3, "cdef", "Y")])
    assert (fixed, applied) == ("abY\n", 1)


def test_lint_fix_rewrites_moved_targets_and_case_slips_in_place(moved: Path) -> None:
    short = git(moved, "rev-parse", "--short", "HEAD").strip()
    here = moved / "assets"  # from another folder of the repository
    before = run(here, "--format", "concise", "../docs/guide.md")
    assert before.returncode == 1, before.stdout + before.stderr
    assert (
        f"docs/guide.md:7:20: KS024 docs/old.md was renamed to docs/payments/retries.md in "
        f"{short}; lint --fix rewrites the link (moved-target)"
    ) in before.stdout
    assert "docs/guide.md:3:5: KS024 relates_to: docs/old.md was renamed" in before.stdout
    assert "KS002" not in before.stdout  # KS024 says where it went
    assert 'KS022 image "../assets/Chart.svg"' in before.stdout
    result = run(here, "--fix", "--format", "concise", "--ignore", "KS003,KS005", "../docs/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kenso-git: fixed 5 findings in 1 file" in result.stderr
    assert (moved / "docs" / "guide.md").read_text(encoding="utf-8") == (
        "---\nrelates_to:\n  - payments/retries.md\n---\n# Guide\n\n"
        "Read [the retries](payments/retries.md#backoff) and ![chart](../assets/chart.svg).\n"
        "The code lives in `src/retry_tool.py` and [the top](#guide).\n"
    )
    assert not [p for p in (moved / "docs").iterdir() if p.name.startswith(".guide")]


def test_lint_diff_prints_the_patch_and_writes_nothing(moved: Path) -> None:
    result = run(moved, "--diff", "docs/")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("--- a/docs/guide.md\n+++ b/docs/guide.md\n")
    assert "-  - old.md\n+  - payments/retries.md\n" in result.stdout
    assert (moved / "docs" / "guide.md").read_text(encoding="utf-8") == GUIDE
    run(moved, "--fix", "docs/")
    clean = run(moved, "--diff", "docs/")
    assert (clean.returncode, clean.stdout) == (0, "")


def test_lint_fix_leaves_unfixable_findings_reported(repo: Path) -> None:
    write(repo, {"docs/a.md": "# A\n\n[gone](missing.md) " + "words " * 20 + "\n"})
    commit_all(repo)
    result = run(repo, "--fix", "--format", "concise", "docs/")
    assert result.returncode == 1
    assert "fixed 0 findings in 0 files" in result.stderr
    assert 'docs/a.md:3:8: KS022 link "missing.md": docs/missing.md does not exist' in (
        result.stdout
    )


def test_lint_fix_never_turns_a_symbolic_link_into_a_file(moved: Path) -> None:
    """A tracked link to a page (`docs/latest.md -> guide.md`) has the page's findings under
    its own name too: `--fix` wrote a fixed copy over the link (git status: typechange).
    The link stays a link and the page it leads to is fixed once."""
    (moved / "docs" / "latest.md").symlink_to("guide.md")
    commit_all(moved, "a link to the guide")
    result = run(moved, "--fix", "--ignore", "KS003,KS005", "docs/")
    assert result.returncode == 0, result.stdout + result.stderr
    link = moved / "docs" / "latest.md"
    assert link.is_symlink() and str(link.readlink()) == "guide.md"
    fixed = (moved / "docs" / "guide.md").read_text(encoding="utf-8")
    assert "payments/retries.md#backoff" in fixed and "old.md" not in fixed
    assert git(moved, "status", "--porcelain").strip() == "M docs/guide.md"


def test_lint_fix_leaves_links_written_as_code_alone(moved: Path) -> None:
    # Markdown shown as source: an indented code block, a double-backtick span and escaped
    # brackets hold no link, so nothing is reported and --fix rewrites none of them
    howto = (
        "# Writing links\n\nThis page shows Markdown source; no sample below is a link.\n\n"
        "    See [the retries](old.md) for details.\n\n"
        "Escaped: \\[retries\\](missing-page.md) and ``[retries](old.md)`` in code.\n"
    )
    write(moved, {"docs/howto.md": howto})
    commit_all(moved, "howto")
    result = run(moved, "--format", "concise", "--select", "KS022,KS024", "docs/howto.md")
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr
    run(moved, "--fix", "docs/howto.md")
    assert (moved / "docs" / "howto.md").read_text(encoding="utf-8") == howto


def test_one_fix_run_makes_the_changes_a_fix_uncovers(repo: Path) -> None:
    # the link's page moved, and its anchor differs in case from the heading: the case slip
    # shows only once the link leads to the page, so the first pass cannot see it
    write(
        repo,
        {
            "docs/old-install.md": "# Install guide\n\n## Install steps\n\n"
            + "Install the thing with steps. " * 4
            + "\n"
        },
    )
    commit_all(repo, "add")
    git(repo, "mv", "docs/old-install.md", "docs/install.md")
    commit_all(repo, "move")
    guide = "# Guide page\n\nSee [install](old-install.md#Install-Steps) for the setup.\n"
    write(repo, {"docs/guide.md": guide})
    commit_all(repo, "guide")
    fixed = "# Guide page\n\nSee [install](install.md#install-steps) for the setup.\n"
    patch = run(repo, "--diff", "docs/")
    assert "+See [install](install.md#install-steps) for the setup.\n" in patch.stdout
    assert (repo / "docs" / "guide.md").read_text(encoding="utf-8") == guide
    result = run(repo, "--fix", "--format", "concise", "--select", "KS022,KS023,KS024", "docs/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "fixed 2 findings in 1 file" in result.stderr
    assert (repo / "docs" / "guide.md").read_text(encoding="utf-8") == fixed


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_lint_fix_rewrites_a_utf16_or_utf32_page_in_its_own_encoding(
    moved: Path, codec: str
) -> None:
    """A UTF-16 page (valid, rules.md) was skipped by --fix in silence, and --diff printed
    nothing, while its KS024 finding said `lint --fix rewrites the link`."""
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00"}
    text = "# Windows guide\r\n\r\nSee [the retries](old.md) for the steps, long enough.\r\n"
    page = moved / "docs" / "win.md"
    page.write_bytes(bom[codec] + text.encode(codec))
    commit_all(moved, "win")
    patch = run(moved, "--diff", "docs/win.md")
    assert "+See [the retries](payments/retries.md) for the steps" in patch.stdout
    result = run(moved, "--fix", "--select", "KS024", "docs/win.md")
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = text.replace("(old.md)", "(payments/retries.md)")
    assert page.read_bytes() == bom[codec] + fixed.encode(codec)


def test_lint_fix_says_which_file_it_could_not_rewrite(moved: Path) -> None:
    page = moved / "docs" / "latin.md"
    page.write_bytes(
        "# Caf\xe9 guide\n\nSee [the retries](old.md) for the steps.\n".encode("latin-1")
    )
    commit_all(moved, "latin")
    before = page.read_bytes()
    result = run(moved, "--fix", "--select", "KS024", "docs/latin.md")
    assert "docs/latin.md: not rewritten: not valid UTF-8: re-save it as UTF-8" in result.stderr
    assert result.returncode == 1 and page.read_bytes() == before


def test_apply_edits_counts_lines_as_the_linter_does() -> None:
    """`str.splitlines` also breaks at a form feed, `\\x85` or U+2028: every edit below one
    landed a line early (a code span on the line above was rewritten, the link left)."""
    text = "a\x0cb\u2028c\x85d\nkeep `[x](T.md)` here\nfix [x](T.md) here\n"
    fixed, applied = apply_edits(text, [Edit(3, 9, "T.md", "t.md")])
    assert applied == 1
    assert fixed == "a\x0cb\u2028c\x85d\nkeep `[x](T.md)` here\nfix [x](t.md) here\n"
    assert apply_edits("no newline at the end", [Edit(1, 1, "no", "NO")]) == (
        "NO newline at the end",
        1,
    )


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_apply_edits_counts_a_carriage_return_as_the_linter_does(end: str) -> None:
    """The linter reads a lone `\r` as a line break (universal newlines, as kenso reads
    files); a page saved with old Mac line endings was reported and never fixed, `--diff`
    printing nothing."""
    text = end.join(["# Page", "", "Link to [old](old.md) here.", ""])
    fixed, applied = apply_edits(text, [Edit(3, 15, "old.md", "new.md")])
    assert applied == 1
    assert fixed == text.replace("(old.md)", "(new.md)")
