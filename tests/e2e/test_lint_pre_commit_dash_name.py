"""The real pre-commit runs the kenso-lint hook on a top-level page whose name starts with
`-`: pre-commit appends file names with no `--`, and `kenso-git lint --staged -draft.md` was
a usage error (`No such option '-d'`, exit 2) that blocked every commit."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import pre_commit_run_hook

DRAFT = "---\ntags: [widget, system, draft]\n---\n# Draft page about the widget system\n\n" + (
    "This draft explains the widget system in enough words for a real document. " * 2 + "\n"
)


def test_pre_commit_lints_a_staged_page_named_with_a_leading_dash(
    repo: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    write(repo, {"-draft.md": DRAFT + "See [the guide](missing.md).\n"})
    git(repo, "add", "--", "-draft.md")
    refused = pre_commit_run_hook(repo, hook_repo, "kenso-lint", pre_commit_home)
    assert "No such option" not in refused.stdout + refused.stderr
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "-draft.md:" in refused.stdout and "KS022" in refused.stdout
    assert "lint --detail --staged -- -draft.md`" in refused.stdout
    write(repo, {"-draft.md": DRAFT})
    git(repo, "add", "--", "-draft.md")
    passed = pre_commit_run_hook(repo, hook_repo, "kenso-lint", pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
