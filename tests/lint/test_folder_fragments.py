"""KS023 on a `#fragment` of a folder link: `./#part`, `.#part`, `../guide/#part`.

The fragment was never checked (a folder has no anchors: counted as not checked), so a
dead one passed. What the folder shows depends on the page's dialect: on GitHub (a project
no site config holds) a folder shows its README; MkDocs (directory URLs, its default) and
Hugo serve `a/p.md` at `a/p/`, so there `./` is the page itself. A folder of a site, or one
with no Markdown README, is still not judged: never a false error.
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

README = FRONT.format(t="Guide overview") + PREAMBLE + "## Install\n\nInstall it.\n"
PAGE = (
    FRONT.format(t="Guide usage page")
    + PREAMBLE
    + "## Usage\n\n"
    + "Read [install](./#install), [usage](./#usage), [dot](.#install) and "
    + "[gone](./#gone).\n\n"
    + "Again [by name](../guide/#install), [up](../guide#gone), [a definition][d] and "
    + '<a href="./#gone">HTML</a>.\n\n'
    + "[d]: ./#usage\n"
)


def _lint(repo: Path, *args: str) -> list[str]:
    found = run(repo, "--format", "concise", "--select", "KS022,KS023", *args)
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS02" in line]


def _dead(line: int, column: int, fragment: str, where: str) -> str:
    return (
        f'docs/guide/page.md:{line}:{column}: KS023 anchor "#{fragment}": no heading of '
        f"{where} makes it (dead-anchor)"
    )


def test_a_folder_fragment_on_github_is_its_readmes(repo: Path) -> None:
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE})
    commit_all(repo, "pages")
    readme = "docs/guide/README.md"
    assert _lint(repo, "docs/") == [
        _dead(11, 37, "usage", readme),
        _dead(11, 76, "gone", readme),
        _dead(13, 42, "gone", readme),
        _dead(13, 89, "gone", readme),
        _dead(15, 6, "usage", readme),
    ]


@pytest.mark.parametrize(
    ("config", "content"),
    [("mkdocs.yml", "site_name: x\n"), ("hugo.toml", 'title = "x"\ncontentDir = "docs"\n')],
)
def test_dot_slash_fragment_on_a_site_is_the_pages_own(
    repo: Path, config: str, content: str
) -> None:
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE, config: content})
    commit_all(repo, "pages")
    # `./` and `.` are the page (served at docs/guide/page/); `../guide/` read from there is
    # docs/guide/guide/, where no page is: not judged
    assert _lint(repo, "docs/") == [
        _dead(11, 16, "install", "this document"),
        _dead(11, 54, "install", "this document"),
        _dead(11, 76, "gone", "this document"),
        _dead(13, 89, "gone", "this document"),
    ]


@pytest.mark.parametrize(
    ("config", "content"),
    [
        # a/p.md at a/p.html: `./` is a/
        ("mkdocs.yml", "site_name: x\nuse_directory_urls: false\n"),
        ("hugo.toml", 'title = "x"\ncontentDir = "docs"\nuglyURLs = true\n'),
        # docs/ is not the site's content: GitHub's page, or not?
        ("mkdocs.yml", "site_name: x\ndocs_dir: site\n"),
        ("hugo.toml", 'title = "x"\n'),
    ],
)
def test_dot_slash_fragment_of_a_page_a_site_may_not_serve_at_its_folder_is_not_judged(
    repo: Path, config: str, content: str
) -> None:
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE, config: content})
    commit_all(repo, "pages")
    assert _lint(repo, "docs/") == []


def test_a_folder_fragment_without_a_markdown_readme_is_not_judged(repo: Path) -> None:
    write(repo, {"docs/guide/README.md": README, "docs/guide/README.rst": "Guide\n"})
    write(repo, {"docs/guide/page.md": PAGE, "docs/other/page.md": PAGE})
    commit_all(repo, "pages")
    assert _lint(repo, "docs/") == []  # two READMEs: which one GitHub shows is not ours


def test_dot_slash_fragment_of_a_root_page_is_the_root_readmes(repo: Path) -> None:
    root = FRONT.format(t="Project") + PREAMBLE + "## Start\n\nSee [start](./#start).\n"
    other = root.replace("Project", "Other page").replace("#start", "#stop")
    write(repo, {"README.md": root, "NOTES.md": other})
    commit_all(repo, "pages")
    found = _lint(repo, "README.md", "NOTES.md")
    assert found == [
        'NOTES.md:11:13: KS023 anchor "#stop": no heading of README.md makes it (dead-anchor)'
    ]


def test_folder_fragments_are_judged_the_same_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's links are placed by the two-pass scan, not the one pass
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE})
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("docs")], overrides={"select": ["KS023"]}).report
    found = [(v.line, v.column) for f in report.files for v in f.violations]
    assert found == [(11, 37), (11, 76), (13, 42), (13, 89), (15, 6)]


SECTION = FRONT.format(t="Linux platform") + PREAMBLE + "## Status and limitations\n\nBeta.\n"
INSTALL = (
    FRONT.format(t="Linux installation")
    + PREAMBLE
    + "## Steps\n\n"
    + "Read [the status](../#status-and-limitations) and [a gone part](../#gone) first.\n"
)


@pytest.mark.parametrize(
    ("config", "content", "index"),
    [("mkdocs.yml", "site_name: x\n", "index.md"), ("hugo.toml", 'title = "x"\n', "_index.md")],
)
def test_a_folder_fragment_on_a_site_is_read_from_the_pages_url(
    repo: Path, config: str, content: str, index: str
) -> None:
    # install.md is served at platforms/linux/install/: `../` is platforms/linux/, whose
    # index page has the section (the file's folder's parent, platforms/, has not)
    root = "docs" if config == "mkdocs.yml" else "content"
    write(repo, {config: content, f"{root}/platforms/{index}": README})
    write(repo, {f"{root}/platforms/linux/{index}": SECTION})
    write(repo, {f"{root}/platforms/linux/install.md": INSTALL})
    commit_all(repo, "pages")
    assert _lint(repo, f"{root}/") == [
        f'{root}/platforms/linux/install.md:11:65: KS023 anchor "#gone": no heading of '
        f"{root}/platforms/linux/{index} makes it (dead-anchor)"
    ]


def test_a_folder_fragment_is_read_from_each_pages_own_url(repo: Path) -> None:
    # a/p.md and a/q.md share a folder, not a URL: `x/#part` is a/p/x/ in one (no page)
    # and a/q/x/ in the other; the answer for p is not q's (the one pass keeps answers by
    # folder)
    link = FRONT.format(t="Page {n}") + PREAMBLE + "## Links\n\nSee [x](x/#part).\n"
    write(repo, {"mkdocs.yml": "site_name: x\n", "docs/a/x/notes.md": README})
    write(repo, {"docs/a/p.md": link.format(n="p"), "docs/a/q.md": link.format(n="q")})
    write(repo, {"docs/a/q/x/index.md": SECTION})
    commit_all(repo, "pages")
    assert _lint(repo, "docs/a/p.md", "docs/a/q.md") == [
        'docs/a/q.md:11:9: KS023 anchor "#part": no heading of docs/a/q/x/index.md makes it '
        "(dead-anchor)"
    ]
