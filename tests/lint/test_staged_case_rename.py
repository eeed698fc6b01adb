"""A rename by case alone (`git mv c.md C.md`) is a rename for the commit gate too: the
pages linking to the old name are linted with the commit. The gate linted the renamed page
alone and passed; on a case-sensitive checkout the links were dead at once, and the next
whole lint reported KS022 (`exists only as`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
ALPHA = PAGE.format(t="Alpha") + "\nSee [gamma](../ref/c.md) and the [ref folder](../ref/).\n"
GAMMA = PAGE.format(t="Gamma") + "\nThe tool is `src/tool.py`.\n"
SELECT = ("--select", "KS002,KS022,KS024,KS025")


@pytest.fixture
def pages(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.delenv("GIT_INDEX_FILE", raising=False)
    write(
        repo,
        {
            "docs/guide/a.md": ALPHA,
            "docs/ref/c.md": GAMMA,
            "docs/other.md": PAGE.format(t="Other") + "\nSee [nothing](nowhere.md).\n",
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


def test_a_page_renamed_by_case_fails_the_gate_on_the_pages_linking_to_it(pages: Path) -> None:
    git(pages, "mv", "docs/ref/c.md", "docs/ref/C.md")
    # before: exit 0 with no finding (only docs/ref/C.md was linted)
    assert _gate(pages, "docs/ref/C.md") == (
        1,
        [
            'docs/guide/a.md:9:13: KS022 link "../ref/c.md": docs/ref/c.md exists only as '
            "docs/ref/C.md (breaks on case-sensitive checkouts) (dead-link)"
        ],
    )
    assert run(pages, "--fix", "--staged", *SELECT, "docs/ref/C.md").returncode == 0
    assert "[gamma](../ref/C.md)" in (pages / "docs/guide/a.md").read_text(encoding="utf-8")
    assert _gate(pages, "docs/ref/C.md") == (0, [])


@pytest.mark.parametrize(
    "env",
    [None, {"PRE_COMMIT": "1"}, {"GIT_INDEX_FILE": ".git/index"}],
    ids=["staged", "pre-commit", "git"],
)
def test_a_folder_renamed_by_case_fails_the_gate(pages: Path, env: dict[str, str] | None) -> None:
    git(pages, "mv", "docs/ref", "docs/Ref")
    code, shown = _gate(pages, "docs/Ref/c.md", env=env)
    assert code == 1
    assert [line.split(" exists only as ")[0] for line in shown] == [
        'docs/guide/a.md:9:13: KS022 link "../ref/c.md": docs/ref/c.md',
        'docs/guide/a.md:9:47: KS022 link "../ref/": docs/ref',
    ]


def test_a_code_file_renamed_by_case_gates_the_pages_naming_it(pages: Path) -> None:
    git(pages, "mv", "src/tool.py", "src/Tool.py")
    # KS025 is a warning: reported, as a whole lint does, without failing the commit
    assert _gate(pages) == (
        0,
        [
            "docs/ref/c.md:9:14: KS025 code path `src/tool.py` exists only as `src/Tool.py` "
            "(case differs) (missing-code-path)"
        ],
    )


def test_the_whole_tree_lint_agrees_with_the_gate(pages: Path) -> None:
    git(pages, "mv", "docs/ref/c.md", "docs/ref/C.md")
    whole = run(pages, "--format", "concise", *SELECT, "docs/guide")
    assert whole.stdout.splitlines() == _gate(pages, "docs/ref/C.md")[1]
