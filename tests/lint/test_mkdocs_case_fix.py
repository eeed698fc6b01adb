"""KS022's case finding and `--fix` on the links of an MkDocs page.

MkDocs serves `docs/a/p.md` at `a/p/`, so `../Setup/` there is `docs/a/Setup.md`, a page of
the tree. Lint read it from the file's folder only (`docs/Setup`, which differs in case from
the folder `docs/setup/`), reported it, and `--fix` rewrote it to `../setup/`: a link the
site reads as `a/setup/`, which nothing serves. `--fix` now rewrites only a link whose
file-folder reading is the one the page's dialect makes: GitHub's every link, MkDocs' a
Markdown link to a file (it rewrites that for the page's URL), not a directory-style link
or raw HTML of a page served below its folder.
"""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run

SETUP = FRONT.format(t="Setup of the a section") + PREAMBLE + "## Steps\n\nDo it.\n"
INDEX = FRONT.format(t="Setup overview index") + PREAMBLE + "## Steps\n\nRead on.\n"
SITE_LINKS = (
    FRONT.format(t="Page linking setup")
    + PREAMBLE
    + "## Links\n\n"
    + 'See [setup](../Setup/), [again](../Setup) and <a href="../Setup/#steps">HTML</a>.\n'
)
CASE_LINKS = (
    FRONT.format(t="Page linking guide")
    + PREAMBLE
    + "## Links\n\n"
    + 'See [guide](../Guide/), [again](../Guide), <a href="../Guide/">HTML</a> and '
    + "[a file](../setup/Index.md).\n"
)
TREE = {
    "docs/a/Setup.md": SETUP,
    "docs/setup/index.md": INDEX,
    "docs/guide/index.md": INDEX.replace("Setup", "Guide"),
    "docs/a/p.md": SITE_LINKS,
    "docs/a/q.md": CASE_LINKS,
}


def _lint(repo: Path, *args: str) -> list[str]:
    found = run(repo, "--format", "concise", "--select", "KS022", *args)
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS02" in line]


def _case(column: int, what: str, raw: str, path: str) -> str:
    real = path.replace("Guide", "guide").replace("Index", "index")
    return (
        f'docs/a/q.md:11:{column}: KS022 {what} "{raw}": {path} exists only as {real} '
        "(breaks on case-sensitive checkouts) (dead-link)"
    )


def test_mkdocs_directory_links_are_judged_as_the_site_reads_them(repo: Path) -> None:
    write(repo, {**TREE, "mkdocs.yml": "site_name: x\n"})
    commit_all(repo, "pages")
    # p.md's links name docs/a/Setup.md from its URL (a/p/): nothing to say of them
    assert not [line for line in _lint(repo, "docs/") if line.startswith("docs/a/p.md")]
    run(repo, "--fix", "--select", "KS022", "docs/a/p.md")
    assert (repo / "docs/a/p.md").read_text(encoding="utf-8") == SITE_LINKS


def test_fix_leaves_mkdocs_links_it_cannot_resolve_as_the_site_reads_them(repo: Path) -> None:
    write(repo, {**TREE, "mkdocs.yml": "site_name: x\n"})
    commit_all(repo, "pages")
    assert _lint(repo, "docs/a/q.md") == [
        _case(13, "link", "../Guide/", "docs/Guide"),
        _case(33, "link", "../Guide", "docs/Guide"),
        _case(53, "HTML link", "../Guide/", "docs/Guide"),
        _case(86, "link", "../setup/Index.md", "docs/setup/Index.md"),
    ]
    run(repo, "--fix", "--select", "KS022", "docs/a/q.md")
    # the site reads `../Guide/` as a/Guide/: `../guide/` would not name docs/guide either;
    # a Markdown link to a file MkDocs rewrites from the file's folder: that one is fixed
    fixed = CASE_LINKS.replace("Index.md", "index.md")
    assert (repo / "docs/a/q.md").read_text(encoding="utf-8") == fixed


def test_github_links_that_differ_in_case_are_fixed_from_the_files_folder(repo: Path) -> None:
    write(repo, {"docs/setup/index.md": INDEX, "docs/guide/index.md": TREE["docs/guide/index.md"]})
    write(repo, {"docs/a/q.md": CASE_LINKS})  # no site config: GitHub reads every link so
    commit_all(repo, "pages")
    assert len(_lint(repo, "docs/")) == 4
    run(repo, "--fix", "--select", "KS022", "docs/")
    fixed = CASE_LINKS.replace("Guide/", "guide/").replace("Guide)", "guide)")
    assert (repo / "docs/a/q.md").read_text(encoding="utf-8") == fixed.replace("Index", "index")
