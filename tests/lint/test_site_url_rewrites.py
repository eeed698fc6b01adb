"""KS024's fix of a directory-style link in a page a site serves at a folder URL of its own.

MkDocs (directory URLs) and Hugo serve `docs/p.md` at `p/`, and a browser reads the page's
`../x/` from there. The rewrite was written from the file's folder (`a/x/`, which the site
serves at `p/a/x/`: a 404); it is now written from the page's URL, as KS022 reads such a
link, and a moved page's link that named a page from its old URL is re-based too. On GitHub
(no site config) the file's folder is what the link is read from, and stays so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run


def _page(title: str, body: str) -> str:
    return FRONT.format(t=title) + PREAMBLE + body + "\n"


SECTION = _page("Section x", "## Api\n\nThe section.")
SETUP = _page("Setup page", "## Steps\n\nHow to set up.")
MOVED = _page("Moved page", "Folder: [x](../x/). Site page: [setup](../setup/#steps).")
SITES = {
    "mkdocs": ("docs", {"mkdocs.yml": "site_name: x\n"}),
    "hugo": ("content", {"hugo.toml": 'title = "x"\n'}),
}


def _concise(cwd: Path, *args: str) -> list[str]:
    found = run(cwd, "--format", "concise", "--select", "KS022,KS023,KS024", *args)
    assert found.returncode in (0, 1), found.stderr
    return [line.split(" in ")[0] for line in found.stdout.splitlines() if ": KS02" in line]


def _moved_page(repo: Path, root: str, config: dict[str, str]) -> None:
    # a/b/p.md served at a/b/p/: `../x/` is a/x/ read from the file's folder, `../setup/`
    # is a/b/setup/ read from its URL; the page then moves to the top, served at p/
    write(repo, {**config, f"{root}/a/x/index.md": SECTION, f"{root}/a/b/setup.md": SETUP})
    write(repo, {f"{root}/a/b/p.md": MOVED})
    commit_all(repo, "pages")
    git(repo, "mv", f"{root}/a/b/p.md", f"{root}/p.md")
    commit_all(repo, "move")


@pytest.mark.parametrize("site", sorted(SITES))
def test_a_moved_site_pages_links_are_rebased_from_its_url(repo: Path, site: str) -> None:
    root, config = SITES[site]
    _moved_page(repo, root, config)
    old = f"{root}/p.md:9:13: KS024 {root}/a/b/p.md was moved to {root}/p.md"
    assert _concise(repo) == [
        old,
        f"{root}/p.md:9:40: KS024 {root}/a/b/p.md was moved to {root}/p.md",
    ]
    fixed = run(repo / root, "--fix", "--select", "KS022,KS023,KS024", ".")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (repo / root / "p.md").read_text(encoding="utf-8")
    assert text.endswith("Folder: [x](../a/x/). Site page: [setup](../a/b/setup/#steps).\n")
    assert _concise(repo / root) == []  # nothing the check reports


def test_a_moved_pages_link_on_github_is_rebased_from_its_folder(repo: Path) -> None:
    _moved_page(repo, "docs", {})
    fixed = run(repo / "docs", "--fix", "--select", "KS022,KS023,KS024", ".")
    assert fixed.returncode in (0, 1), fixed.stderr
    text = (repo / "docs/p.md").read_text(encoding="utf-8")
    # GitHub reads `a/x/` from docs/; `../setup/` named docs/a/b/setup.md only from the
    # page's old URL, and a site's reading is what this project has none of: the page
    # at its folder's URL, written from the file's folder
    assert text.endswith("Folder: [x](a/x/). Site page: [setup](a/b/setup/#steps).\n")
    assert _concise(repo / "docs") == []


def test_a_folder_moved_under_an_mkdocs_page_is_relinked_from_the_pages_url(repo: Path) -> None:
    page = _page("Guide page", "See [the reference](../ref/#api).")
    write(repo, {"mkdocs.yml": "site_name: x\n", "docs/ref/index.md": SECTION})
    write(repo, {"docs/guide/p.md": page})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/ref", "docs/reference")
    commit_all(repo, "move")
    assert _concise(repo) == [
        "docs/guide/p.md:9:21: KS024 docs/ref was renamed to docs/reference",
    ]
    fixed = run(repo / "docs" / "guide", "--fix", "--select", "KS022,KS023,KS024", "p.md")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (repo / "docs/guide/p.md").read_text(encoding="utf-8")
    # docs/guide/p.md is served at guide/p/: the section at reference/ is ../../reference/
    assert text.endswith("See [the reference](../../reference/#api).\n")
    assert _concise(repo) == []


def test_a_site_pages_link_to_a_renamed_page_follows_it_from_its_url(repo: Path) -> None:
    # docs/guide/p.md is served at guide/p/: `../setup/` is docs/guide/setup.md, and
    # `../../ref/` the section docs/ref/; git asked only about docs/setup and ref (the file's
    # folder's reading), so the links were KS022s with no fix
    page = _page(
        "Guide page", "Read [setup](../setup/#steps), [again](../setup) and [ref](../../ref/)."
    )
    write(repo, {"mkdocs.yml": "site_name: x\n", "docs/guide/setup.md": SETUP})
    write(repo, {"docs/ref/index.md": SECTION, "docs/guide/p.md": page})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    git(repo, "mv", "docs/ref", "docs/reference")
    commit_all(repo, "move")
    renamed = "docs/guide/setup.md was renamed to docs/guide/install.md"
    assert _concise(repo) == [
        f"docs/guide/p.md:9:14: KS024 {renamed}",
        f"docs/guide/p.md:9:40: KS024 {renamed}",
        "docs/guide/p.md:9:60: KS024 docs/ref/index.md was renamed to docs/reference/index.md",
    ]
    fixed = run(repo / "docs", "--fix", "--select", "KS022,KS023,KS024")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (repo / "docs/guide/p.md").read_text(encoding="utf-8")
    want = "Read [setup](../install/#steps), [again](../install) and [ref](../../reference/).\n"
    assert text.endswith(want)
    assert _concise(repo) == []
