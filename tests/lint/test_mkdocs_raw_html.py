"""KS022 on raw HTML `src`/`href` in the pages of an MkDocs project.

MkDocs (directory URLs, its default) serves `content/ref/install/api.md` at
`ref/install/api/`. It rewrites a Markdown link for that URL, but leaves raw HTML as
written, so the browser reads `<img src="../../../assets/img/dash.png">` from the page's URL
folder: `content/assets/img/dash.png` (Traefik's docs write it so). Lint read it from the
file's folder only and called it dead. GitHub reads raw HTML from the file's folder, so
that reading still passes; a Markdown link is read from the file's folder alone.
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

API = (
    FRONT.format(t="API dashboard page")
    + PREAMBLE
    + "## Dashboard\n\n"
    + '<img src="../../../assets/img/dash.png" alt="for the site">\n\n'
    + '<img src="../../assets/img/dash.png" alt="for GitHub">\n\n'
    + '<a href="../../../assets/img/dash.png#zoom">the site\'s link</a>\n\n'
    + '<img src="../../../assets/img/gone.png" alt="dead from both">\n\n'
    + "![Markdown, rewritten by MkDocs](../../../assets/img/dash.png)\n"
)
INDEX = (
    FRONT.format(t="Reference index page")
    + PREAMBLE
    + "## Pages\n\n"
    + '<img src="../assets/img/dash.png" alt="an index page: its URL is its folder">\n'
)
FILES = {
    "content/assets/img/dash.png": "png\n",
    "content/ref/install/api.md": API,
    "content/ref/index.md": INDEX,
}


def _lint(repo: Path) -> list[str]:
    found = run(repo, "--format", "concise", "--select", "KS022,KS023", "content/")
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS02" in line]


def _dead(line: int, column: int, what: str, raw: str, path: str) -> str:
    return (
        f'content/ref/install/api.md:{line}:{column}: KS022 {what} "{raw}": {path} does not '
        "exist (dead-link)"
    )


def test_raw_html_of_an_mkdocs_page_is_read_from_its_url_too(repo: Path) -> None:
    write(repo, {**FILES, "mkdocs.yml": "site_name: x\ndocs_dir: content\n"})
    commit_all(repo, "pages")
    assert _lint(repo) == [
        _dead(17, 11, "HTML image", "../../../assets/img/gone.png", "assets/img/gone.png"),
        _dead(19, 34, "image", "../../../assets/img/dash.png", "assets/img/dash.png"),
    ]


def test_raw_html_of_a_page_github_renders_is_read_from_its_folder(repo: Path) -> None:
    write(repo, FILES)  # no mkdocs.yml
    commit_all(repo, "pages")
    site = "../../../assets/img/dash.png"
    assert _lint(repo) == [
        _dead(11, 11, "HTML image", site, "assets/img/dash.png"),
        _dead(15, 10, "HTML link", site + "#zoom", "assets/img/dash.png"),
        _dead(17, 11, "HTML image", "../../../assets/img/gone.png", "assets/img/gone.png"),
        _dead(19, 34, "image", site, "assets/img/dash.png"),
    ]


@pytest.mark.parametrize(
    "config", ["site_name: x\ndocs_dir: content\nuse_directory_urls: false\n", "site_name: x\n"]
)
def test_raw_html_of_a_page_mkdocs_does_not_serve_at_a_folder_is_read_from_its_folder(
    repo: Path, config: str
) -> None:
    # a/p.md at a/p.html, or a page outside docs_dir (docs/ by default): the file's folder
    write(repo, {**FILES, "mkdocs.yml": config})
    commit_all(repo, "pages")
    assert len(_lint(repo)) == 4


def test_raw_html_is_read_the_same_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's links are placed by the two-pass scan, not the one pass
    write(repo, {**FILES, "mkdocs.yml": "site_name: x\ndocs_dir: content\n"})
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("content")], overrides={"select": ["KS022"]}).report
    found = [(v.line, v.column) for f in report.files for v in f.violations]
    assert found == [(17, 11), (19, 34)]
