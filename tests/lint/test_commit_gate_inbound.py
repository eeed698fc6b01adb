"""The commit gate lints the pages that link to what the staged changes rename or delete:
`lint --staged` (the kenso-lint pre-commit hook's entry), or lint run from a commit hook on
the staged files. A rename or deletion broke links in pages the commit did not hold, and
the gate passed it; the next whole lint reported KS024 or KS022."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
ALPHA = PAGE.format(t="Alpha") + "\nSee [beta](b.md) and [gamma](../ref/c.md).\n"
GAMMA = PAGE.format(t="Gamma") + "\nThe tool is `src/tool.py`.\n"
DELTA = (
    "---\ntitle: Delta\ntags: [a, b, c]\nrelates_to: [../guide/b.md]\n---\n# Delta\n\n"
    "Words that make a page of it here.\n"
)
# a page with an error of its own that names nothing the commits below touch
UNRELATED = PAGE.format(t="Other") + "\nSee [nothing](nowhere.md).\n"
SELECT = ("--select", "KS002,KS022,KS024")


@pytest.fixture
def pages(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.delenv("GIT_INDEX_FILE", raising=False)
    write(
        repo,
        {
            "docs/guide/a.md": ALPHA,
            "docs/guide/b.md": PAGE.format(t="Beta"),
            "docs/ref/c.md": GAMMA,
            "docs/ref/d.md": DELTA,
            "docs/other.md": UNRELATED,
            "src/tool.py": "print('x')\n",
        },
    )
    commit_all(repo, "pages")
    return repo


def _gate(repo: Path, *paths: str, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    args = ("--staged",) if env is None else ()
    shown = run(repo, "--format", "concise", *SELECT, *args, *paths, env=env)
    assert shown.stderr == "", shown.stderr
    return shown.returncode, shown.stdout.splitlines()


def test_staged_rename_fails_the_gate_on_the_pages_linking_to_it(pages: Path) -> None:
    git(pages, "mv", "docs/ref/c.md", "docs/ref/c2.md")
    # before: exit 0 with no finding (pre-commit passed docs/ref/c2.md alone)
    assert _gate(pages, "docs/ref/c2.md") == (
        1,
        [
            "docs/guide/a.md:9:30: KS024 docs/ref/c.md was renamed to docs/ref/c2.md in the "
            "staged changes; lint --fix rewrites the link (moved-target)"
        ],
    )
    assert run(pages, "--fix", "--staged", *SELECT, "docs/ref/c2.md").returncode == 0
    assert "[gamma](../ref/c2.md)" in (pages / "docs/guide/a.md").read_text(encoding="utf-8")


def test_staged_deletion_fails_the_gate_with_no_markdown_file_given(pages: Path) -> None:
    git(pages, "rm", "-q", "docs/guide/b.md")
    # before: pre-commit skipped the hook (no Markdown file staged); a KS022 and a KS002
    # were committed
    assert _gate(pages) == (
        1,
        [
            'docs/guide/a.md:9:12: KS022 link "b.md": docs/guide/b.md does not exist (dead-link)',
            'docs/ref/d.md:4:14: KS002 relates_to target "../guide/b.md" does not exist '
            "(broken-link)",
        ],
    )


def test_a_page_removed_from_the_index_but_left_on_disk_fails_the_gate(pages: Path) -> None:
    git(pages, "rm", "-q", "--cached", "docs/guide/b.md")
    assert _gate(pages, "docs/ref/c.md", env={"PRE_COMMIT": "1"}) == (
        1,
        [
            'docs/guide/a.md:9:12: KS022 link "b.md": docs/guide/b.md exists but is not '
            "staged: `git add docs/guide/b.md`, or the commit holds a dead link (dead-link)"
        ],
    )


@pytest.mark.parametrize(
    "env", [{"PRE_COMMIT": "1"}, {"GIT_INDEX_FILE": ".git/index"}], ids=["pre-commit", "git"]
)
def test_a_commit_hook_given_the_staged_files_also_lints_the_linking_pages(
    pages: Path, env: dict[str, str]
) -> None:
    """An older hook configuration (`entry: kenso-git lint`, no `--staged`) is gated too."""
    git(pages, "mv", "docs/guide/b.md", "docs/guide/b2.md")
    code, shown = _gate(pages, "docs/guide/b2.md", env=env)
    assert code == 1
    assert [line.split(": ")[0] + " " + line.split(": ")[1][:5] for line in shown] == [
        "docs/guide/a.md:9:12 KS024",
        "docs/ref/d.md:4:14 KS024",
    ]


def test_a_renamed_code_file_gates_the_pages_naming_it(pages: Path) -> None:
    git(pages, "mv", "src/tool.py", "src/tool2.py")
    assert _gate(pages) == (
        1,
        [
            "docs/ref/c.md:9:14: KS024 src/tool.py was renamed to src/tool2.py in the staged "
            "changes; lint --fix rewrites the code path (moved-target)"
        ],
    )


def test_nothing_staged_lints_nothing_and_passes(pages: Path) -> None:
    """The hook runs on every commit (always_run): a commit that touches no doc and breaks
    no link passes, whatever errors other pages hold."""
    write(pages, {"src/tool.py": "print('y')\n"})
    git(pages, "add", "src/tool.py")
    assert _gate(pages) == (0, [])
    shown = run(pages, "--staged")
    assert shown.returncode == 0
    assert shown.stdout.startswith("kenso-git · lint 0 files\n")


def test_outside_a_commit_hook_lint_of_a_file_lints_that_file(pages: Path) -> None:
    git(pages, "mv", "docs/ref/c.md", "docs/ref/c2.md")
    shown = run(pages, "--format", "concise", *SELECT, "docs/ref/c2.md")
    assert (shown.returncode, shown.stdout) == (0, "")


def test_the_gate_says_which_staged_pages_hold_unstaged_changes(pages: Path) -> None:
    # a plain git hook (not pre-commit, which stashes them) ran the gate on the work tree's
    # text: a dead link staged and fixed only in the work tree was committed, silently
    page = pages / "docs" / "guide" / "b.md"
    page.write_text(PAGE.format(t="Beta") + "\nSee [gone](gone.md).\n", encoding="utf-8")
    git(pages, "add", "docs/guide/b.md")
    page.write_text(PAGE.format(t="Beta") + "\nSee [alpha](a.md).\n", encoding="utf-8")
    shown = run(pages, "--format", "concise", *SELECT, "--staged")
    assert "docs/guide/b.md: has changes that are not staged" in shown.stderr, shown.stderr
    git(pages, "add", "docs/guide/b.md")
    assert run(pages, "--format", "concise", *SELECT, "--staged").stderr == ""
