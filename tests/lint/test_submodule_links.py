"""Links into a git submodule: the submodule's files are listed as it has them, so a dead
link into it is found (it passed: the submodule folder counted as holding every path); and
the anchors of its pages, as of an ignored folder's, are read from disk and checked with the
same rule as the corpus' own (a dead `#fragment` there passed without a word)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import fixed_git_identity as fixed_git_identity  # autouse fixture
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

TOP = (
    "# Top\n\nThe [library](../vendor/lib/docs/libpage.md), its [setup](../vendor/lib/SETUP.md)"
    " and a [dead one](../vendor/lib/docs/nope.md).\n"
)
LIBPAGE = "# Lib\n\n## Install steps\n\nLibrary docs.\n"
ANCHORS = (
    "# Top\n\n"
    "The [steps](../vendor/lib/docs/libpage.md#install-steps)"
    " and a [typo](../vendor/lib/docs/libpage.md#instal-steps).\n"
    "In [another case](../vendor/lib/docs/libpage.md#Install-Steps).\n"
    "The [built page](../build/gen.md#generated-reference)"
    " and [a gone part](../build/gen.md#gone).\n"
)


def _parent(tmp_path: Path, *, checked_out: bool, page: str = TOP) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir(exist_ok=True)  # a test may have put more in it
    git(lib, "init", "-q")
    write(lib, {"docs/libpage.md": LIBPAGE, "SETUP.md": "# Setup\n"})
    commit_all(lib, "lib")
    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    write(top, {"docs/top.md": page, ".gitignore": "build/\n"})
    write(top, {"build/gen.md": "# Generated Reference\n\nMade by the build.\n"})
    commit_all(top, "top")
    if not checked_out:
        git(top, "submodule", "deinit", "-q", "--force", "vendor/lib")
    return top


def test_a_dead_link_into_a_submodule_is_found(tmp_path: Path) -> None:
    shown = run(_parent(tmp_path, checked_out=True), "--select", "KS022", "--format", "concise")
    assert shown.returncode == 1, shown.stderr
    found = [line for line in shown.stdout.splitlines() if "KS022" in line]
    assert len(found) == 1 and "nope.md" in found[0], shown.stdout


def test_links_into_a_submodule_not_checked_out_are_said_unchecked(tmp_path: Path) -> None:
    shown = run(_parent(tmp_path, checked_out=False), "--select", "KS022", "docs")
    assert shown.returncode == 0, shown.stderr
    assert "not checked offline: link into a submodule not checked out (3)" in shown.stdout


def test_a_dead_anchor_into_a_submodule_or_ignored_page_is_found(tmp_path: Path) -> None:
    top = _parent(tmp_path, checked_out=True, page=ANCHORS)
    shown = run(top, "--select", "KS022,KS023", "--format", "concise", "docs")
    assert shown.returncode == 1, shown.stderr
    assert shown.stdout.splitlines() == [
        'docs/top.md:3:71: KS023 anchor "#instal-steps": no heading of '
        'vendor/lib/docs/libpage.md makes it; did you mean "#install-steps"? (dead-anchor)',
        'docs/top.md:4:19: KS023 anchor "#Install-Steps" differs in case from '
        '"#install-steps" of vendor/lib/docs/libpage.md (dead-anchor)',
        'docs/top.md:5:73: KS023 anchor "#gone": no heading of build/gen.md makes it (dead-anchor)',
    ]


def test_fix_rewrites_an_anchor_differing_in_case_in_a_submodule_page(tmp_path: Path) -> None:
    """As in the corpus' own pages: the case is fixed, and a typo one anchor is close to; a
    missing heading is left to say."""
    top = _parent(tmp_path, checked_out=True, page=ANCHORS)
    shown = run(top, "--select", "KS023", "--fix", "--format", "concise", "docs")
    assert shown.returncode == 1, shown.stderr
    text = (top / "docs/top.md").read_text(encoding="utf-8")
    fixed = ANCHORS.replace("#Install-Steps", "#install-steps")
    assert text == fixed.replace("#instal-steps", "#install-steps")
    found = [line.split(": KS023")[0] for line in shown.stdout.splitlines() if "KS023" in line]
    assert found == ["docs/top.md:5:73"], shown.stdout


def test_an_anchor_no_readable_page_answers_is_said_unchecked(tmp_path: Path) -> None:
    """A fragment into a file that is not Markdown, a symlink (never followed) or a page past
    the size cap is counted, not passed; one into a page missing from an ignored folder is a
    dead link."""
    lib = tmp_path / "lib"
    write(lib, {"docs/api.html": '<h2 id="run">run</h2>\n', "docs/big.md": "# Big\n" * 100})
    os.symlink("libpage.md", lib / "docs/alias.md")
    page = (
        "# Top\n\nSee [api](../vendor/lib/docs/api.html#run),"
        " [alias](../vendor/lib/docs/alias.md#lib),"
        " [big](../vendor/lib/docs/big.md#big), [gone](../build/gone.md#x)"
        " and [line](../vendor/lib/docs/api.html#L3).\n"
    )
    top = _parent(tmp_path, checked_out=True, page=page)
    shown = run(top, "--select", "KS022,KS023", "docs", env={"KENSO_MAX_FILE_SIZE": "400"})
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert 'KS022 link "../build/gone.md#x": build/gone.md does not exist' in shown.stdout
    assert (
        "not checked offline: anchor into a Markdown file lint could not read (2), "
        "anchor into a folder or a file that is not Markdown (1)"
    ) in shown.stdout


def test_a_link_to_a_file_missing_from_a_present_ignored_folder_is_dead(tmp_path: Path) -> None:
    """git lists an ignored folder whole, never file by file: what is in it is looked up on
    disk, so a link to a page the build folder lacks is dead (it passed: the folder was taken
    to hold every path), and one to a page it holds passes."""
    page = "# Top\n\nThe [built page](../build/gen.md) and [a missing one](../build/nope.md).\n"
    shown = run(
        _parent(tmp_path, checked_out=True, page=page), "--select", "KS022", "--format", "concise"
    )
    found = [line for line in shown.stdout.splitlines() if "KS022" in line]
    assert len(found) == 1 and "build/nope.md" in found[0], shown.stdout
    assert shown.returncode == 1, shown.stderr
