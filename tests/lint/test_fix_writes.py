"""What `lint --fix` writes, and where: never through a symbolic link, only changes it makes
(counted as such), the file's inode kept when it has other hard links, its mode and owner
kept, and a link's letters left as the user wrote them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

LONG = " The page text is long enough to be a real section here for lint.\n"
LINKER = "# Linker page\n\nThis page links to [the notes target](Target.md) beside it.\n"


def _aliased(repo: Path, linker: str) -> Path:
    """docs/linker-alias.md -> ../notes/linker.md, committed; the real page returned."""
    write(
        repo,
        {
            "docs/target.md": "# Docs target page\n" + LONG,
            "notes/Target.md": "# Notes target page\n" + LONG,
            "notes/linker.md": linker,
        },
    )
    (repo / "docs" / "linker-alias.md").symlink_to("../notes/linker.md")
    commit_all(repo, "alias")
    return repo / "notes" / "linker.md"


NOTE = (
    "docs/linker-alias.md: not rewritten: a symbolic link to notes/linker.md; "
    "fix notes/linker.md itself"
)


def test_lint_fix_of_a_symlinked_page_lints_its_real_page_and_writes_nothing(repo: Path) -> None:
    """Seen from docs/, `Target.md` differs in case from docs/target.md; `--fix` fixed it
    into notes/linker.md, linted it there (where notes/Target.md is right), put it back,
    and said "fixed 2 findings in 1 file" on every run, writing the same bytes anew. The
    alias is now linted once, at its real path, where its link is right: nothing to fix
    (its KS022 seen from docs/ was one no fix could clear)."""
    real = _aliased(repo, LINKER)
    inode = real.stat().st_ino
    patch = run(repo, "--diff", "docs")
    assert (patch.returncode, patch.stdout) == (0, "")
    for _ in range(2):
        fixed = run(repo, "--fix", "--format", "concise", "docs")
        assert "kenso-git: fixed 0 findings in 0 files" in fixed.stderr, fixed.stderr
        assert NOTE not in fixed.stderr
        assert "linker-alias" not in fixed.stdout
    assert real.read_text(encoding="utf-8") == LINKER
    assert real.stat().st_ino == inode
    assert git(repo, "status", "--porcelain") == ""


def test_lint_fix_never_writes_a_fix_worked_out_for_the_links_place(repo: Path) -> None:
    """The alias's `Guide.md` differs in case from docs/guide.md; the fix, right for docs/,
    was written into notes/linker.md, where no guide.md is (when both folders were fixed)."""
    linker = "# Linker page\n\nThis page links to [the guide](Guide.md) from the notes.\n"
    real = _aliased(repo, linker)
    write(repo, {"docs/guide.md": "# Guide page\n" + LONG})
    commit_all(repo, "guide")
    fixed = run(repo, "--fix", "--format", "concise", "docs", "notes")
    assert "kenso-git: fixed 0 findings in 0 files" in fixed.stderr, fixed.stderr
    assert "linker-alias" not in fixed.stdout + fixed.stderr  # linted at notes/linker.md
    assert real.read_text(encoding="utf-8") == linker


def test_lint_fix_keeps_a_hard_linked_page_one_file(repo: Path, tmp_path: Path) -> None:
    page = repo / "docs" / "page.md"
    write(repo, {"docs/target.md": "# Target page\n" + LONG})
    write(repo, {"docs/page.md": "# Page\n\nThis page links to [t](Target.md) for the test.\n"})
    commit_all(repo)
    other = tmp_path / "elsewhere.md"
    os.link(page, other)
    inode = page.stat().st_ino
    result = run(repo, "--fix", "--select", "KS022", "docs/page.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[t](target.md)" in page.read_text(encoding="utf-8")
    assert page.stat().st_ino == inode and page.stat().st_nlink == 2
    assert other.read_text(encoding="utf-8") == page.read_text(encoding="utf-8")


def test_lint_fix_keeps_the_mode_of_a_page_it_replaces(repo: Path) -> None:
    page = repo / "docs" / "page.md"
    write(repo, {"docs/target.md": "# Target page\n" + LONG})
    write(repo, {"docs/page.md": "# Page\n\nThis page links to [t](Target.md) for the test.\n"})
    page.chmod(0o640)
    result = run(repo, "--fix", "--select", "KS022", "docs/page.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[t](target.md)" in page.read_text(encoding="utf-8")
    assert page.stat().st_mode & 0o7777 == 0o640
    assert not [p.name for p in page.parent.iterdir() if p.name.startswith(".page.md.")]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another user")
def test_lint_fix_run_as_root_keeps_the_owner_of_the_page(repo: Path) -> None:
    """Run as root (a CI container), `--fix` made root the owner of the user's page."""
    page = repo / "docs" / "page.md"
    write(repo, {"docs/target.md": "# Target page\n" + LONG})
    write(repo, {"docs/page.md": "# Page\n\nThis page links to [t](Target.md) for the test.\n"})
    os.chown(page, 65534, 65534)
    result = run(repo, "--fix", "--select", "KS022", "docs/page.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[t](target.md)" in page.read_text(encoding="utf-8")
    assert (page.stat().st_uid, page.stat().st_gid) == (65534, 65534)


@pytest.mark.parametrize(
    ("link", "fixed"),
    [
        # a space escaped, the é typed as it is: the é stays (it became %C3%A9)
        ("GUIDE/new%20target%20é.md", "guide/new%20target%20é.md"),
        # the é escaped too: kept escaped
        ("GUIDE/new%20target%20%C3%A9.md", "guide/new%20target%20%C3%A9.md"),
        ("<GUIDE/new target é.md>", "<guide/new target é.md>"),
    ],
)
def test_lint_fix_keeps_the_letters_of_a_link_as_the_user_wrote_them(
    repo: Path, link: str, fixed: str
) -> None:
    write(repo, {"docs/guide/new target é.md": "# Target page\n" + LONG})
    page = f"# Mode test\n\nThis page links to [s]({link}) here for testing modes.\n"
    write(repo, {"docs/mode.md": page})
    commit_all(repo)
    result = run(repo, "--fix", "--select", "KS022", "docs/mode.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (repo / "docs" / "mode.md").read_text(encoding="utf-8") == page.replace(link, fixed)


def test_lint_fix_of_a_moved_page_keeps_a_typed_letter_and_escapes_a_space(repo: Path) -> None:
    """The tester's case: a page renamed to `guide/new target é.md`, linked as `%20` for a
    space: the new link escapes the spaces as the old one did, and writes the é as it is."""
    write(repo, {"docs/old page.md": "# Target page\n" + LONG})
    commit_all(repo, "a")
    (repo / "docs" / "guide").mkdir()
    git(repo, "mv", "docs/old page.md", "docs/guide/new target é.md")
    commit_all(repo, "mv")
    page = "# Mode test\n\nThis page links to [s](old%20page.md) and [t](<old page.md>).\n"
    write(repo, {"docs/mode.md": page})
    result = run(repo, "--fix", "--select", "KS024", "docs/mode.md")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (repo / "docs" / "mode.md").read_text(encoding="utf-8") == (
        "# Mode test\n\nThis page links to [s](guide/new%20target%20é.md) and "
        "[t](<guide/new target é.md>).\n"
    )
