"""The commit gate reads the index git names in a commit hook. `git commit -a` (`-i`, `-o`,
`commit -- paths`) stages into an index of its own (`.git/index.lock`,
`.git/next-index-*.lock`) and names it in GIT_INDEX_FILE alone; `lint --staged` read
`.git/index`, which lacks what those commits stage, and let a dead link through that the
same commit made with `git add` then `git commit` was refused for."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
ALPHA = PAGE.format(t="Alpha") + "\nSee [beta](b.md).\n"
DEAD = ALPHA + "\nAnd [the setup](setup.md).\n"
DEAD_FINDING = (
    'docs/guide/a.md:11:17: KS022 link "setup.md": docs/guide/setup.md does not exist (dead-link)\n'
)


@pytest.fixture
def pages(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Pages committed, and a pre-commit hook that runs the gate from `docs/` (git runs
    hooks at the top of the work tree)."""
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    write(repo, {"docs/guide/a.md": ALPHA, "docs/guide/b.md": PAGE.format(t="Beta")})
    commit_all(repo, "pages")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(
        f"#!/bin/sh\ncd docs && exec {shlex.quote(sys.executable)} -m kenso_git lint --staged "
        "--select KS022 --format concise\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    return repo


def _commit(  # git shows a hook's output on its stderr
    repo: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", "change", *args],
        cwd=cwd or repo,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize(
    "how",
    [
        ("-a",),
        ("--", "docs/guide/a.md"),
        ("-o", "docs/guide/a.md"),
        ("-i", "docs/guide/a.md"),
    ],
    ids=["all", "paths", "only", "include"],
)
def test_a_dead_link_staged_by_the_commit_itself_is_refused(
    pages: Path, how: tuple[str, ...]
) -> None:
    before = _head(pages)
    write(pages, {"docs/guide/a.md": DEAD})
    done = _commit(pages, *how)
    # before: exit 0, the commit made (`.git/index` still held the committed page)
    assert done.returncode == 1, done.stderr
    assert done.stderr == DEAD_FINDING
    assert _head(pages) == before
    assert git(pages, "status", "--porcelain") == " M docs/guide/a.md\n"  # git's index as it was


def test_a_page_deleted_by_commit_all_gates_the_pages_linking_to_it(pages: Path) -> None:
    before = _head(pages)
    (pages / "docs/guide/b.md").unlink()
    done = _commit(pages, "-a")
    # before: exit 0 (nothing staged in `.git/index`: nothing linted)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        'docs/guide/a.md:9:12: KS022 link "b.md": docs/guide/b.md does not exist (dead-link)\n'
    )
    assert _head(pages) == before


def test_a_clean_commit_all_passes_and_commits_what_it_staged(pages: Path) -> None:
    write(pages, {"docs/guide/a.md": ALPHA + "\nMore words.\n"})
    done = _commit(pages, "-a")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(pages, "status", "--porcelain") == ""
    assert not (pages / ".git" / "index.lock").exists()


def test_an_index_named_relative_to_the_top_is_read_from_a_subfolder(pages: Path) -> None:
    """`GIT_INDEX_FILE=.git/alt git commit` from `docs/`: git reads it from the top of the
    work tree and names it to the hook as given; the hook runs the gate from `docs/`."""
    alt = {**os.environ, "GIT_INDEX_FILE": ".git/alt-index"}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=pages, env=alt, check=True)
    write(pages, {"docs/guide/a.md": DEAD})
    subprocess.run(["git", "add", "docs/guide/a.md"], cwd=pages, env=alt, check=True)
    done = _commit(pages, cwd=pages / "docs", env=alt)
    # before: exit 0 (`.git/index` held nothing staged)
    assert done.returncode == 1, done.stderr
    assert done.stderr == DEAD_FINDING


def test_an_index_named_that_is_not_there_leaves_the_repository_index_read(pages: Path) -> None:
    write(pages, {"docs/guide/a.md": DEAD})
    git(pages, "add", "docs/guide/a.md")
    shown = run(
        pages,
        "--staged",
        "--select",
        "KS022",
        "--format",
        "concise",
        env={"GIT_INDEX_FILE": str(pages / ".git" / "no-such-index")},
    )
    assert shown.returncode == 1, shown.stderr
    assert shown.stdout == DEAD_FINDING


@pytest.mark.parametrize("how", [("--",), ("-o",)], ids=["paths", "only"])
def test_a_partial_commit_leaving_out_its_link_target_is_refused(
    pages: Path, how: tuple[str, ...]
) -> None:
    # the target is staged in .git/index but not part of this commit: in the commit's tree
    # the link is dead, so the gate lists the tree from the index git names too
    before = _head(pages)
    write(pages, {"docs/guide/setup.md": PAGE.format(t="Setup")})
    git(pages, "add", "docs/guide/setup.md")
    write(pages, {"docs/guide/a.md": DEAD})
    done = _commit(pages, *how, "docs/guide/a.md")
    assert done.returncode != 0
    assert "KS022" in done.stderr + done.stdout
    assert _head(pages) == before
    # with the target in the commit too, it passes
    assert _commit(pages, *how, "docs/guide/a.md", "docs/guide/setup.md").returncode == 0
