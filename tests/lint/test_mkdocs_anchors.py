"""KS023 and `lint --fix` on the anchors of an MkDocs project's pages.

MkDocs renders heading ids with Python-Markdown's `toc` extension ("Users & UsersFile" is
`#users-usersfile`, a repeated heading `#x_1`), while KS023 checked GitHub's slugs only
(`#users--usersfile`, `#x-1`): the links of a valid MkDocs site were errors that failed
the commit gate, and `--fix` rewrote `#resourceattributes_1` to GitHub's
`#resourceattributes-1`, a dead anchor on the site.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.lint import corpus
from kenso_git.lint.session import run_lint
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run

PROSE = "Text text text text text text text text text text text.\n\n"

AUTH = (
    FRONT.format(t="Basic auth middleware")
    + PREAMBLE
    + "## Options\n\n"
    + "Set [users](#users-usersfile) or [the file](#users--usersfile); traces take "
    + "[attributes](#resourceattributes_1); [depth](#example-of-depth-x-forwarded-for); "
    + "[install](#install_1).\n\n"
    + "### users & usersFile\n\n"
    + PROSE
    + "### resourceAttributes\n\n"
    + PROSE
    + "### resourceAttributes\n\n"
    + PROSE
    + "### Example of Depth & `X-Forwarded-For`\n\n"
    + PROSE
    + "### Setup {#install}\n\n"
    + PROSE
    + "### Install\n\n"
    + PROSE
)
OTHER = (
    FRONT.format(t="Another page linking in")
    + PREAMBLE
    + "## Links\n\n"
    + "See [users](auth.md#users-usersfile) and [attributes](auth.md#resourceattributes_1).\n"
)
MKDOCS = "site_name: Test\ndocs_dir: docs\nmarkdown_extensions:\n  - toc:\n      permalink: true\n"


def _ks023(repo: Path) -> str:
    found = run(repo, "--format", "concise", "--select", "KS023", "docs/")
    assert found.returncode in (0, 1), found.stderr
    return found.stdout


def test_an_mkdocs_pages_python_markdown_anchors_pass_and_fix_leaves_them(repo: Path) -> None:
    write(repo, {"mkdocs.yml": MKDOCS, "docs/auth.md": AUTH, "docs/other.md": OTHER})
    commit_all(repo, "site")
    assert "KS023" not in _ks023(repo)
    run(repo, "--fix", "--select", "KS023", "docs/")
    assert (repo / "docs/auth.md").read_text(encoding="utf-8") == AUTH
    assert (repo / "docs/other.md").read_text(encoding="utf-8") == OTHER


def test_an_mkdocs_pages_anchors_pass_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's anchors are taken when it is loaded, with no tree yet
    write(repo, {"mkdocs.yml": MKDOCS, "docs/auth.md": AUTH, "docs/other.md": OTHER})
    commit_all(repo, "site")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("docs")], overrides={"select": ["KS023"]}).report
    assert [v.message for f in report.files for v in f.violations] == []


def test_an_mkdocs_config_beside_the_pages_folder_counts_and_a_sibling_folders_does_not(
    repo: Path,
) -> None:
    write(repo, {"site/docs/mkdocs.yml": MKDOCS, "site/docs/auth.md": AUTH})
    write(repo, {"other/mkdocs.yml": MKDOCS, "docs/auth.md": AUTH})
    commit_all(repo, "sites")
    found = run(repo, "--format", "concise", "--select", "KS023", "docs/", "site/")
    assert "site/docs/auth.md" not in found.stdout, found.stdout
    # docs/ belongs to no MkDocs project: GitHub's slugs only, as before
    dead = [line.split(": KS023 ")[1] for line in found.stdout.splitlines() if "KS023" in line]
    assert [message.split(":")[0] for message in dead] == [
        'anchor "#users-usersfile"',
        'anchor "#resourceattributes_1"',
        'anchor "#example-of-depth-x-forwarded-for"',
        'anchor "#install_1"',
    ], found.stdout
