"""KS022 on directory-style links of pages a static site serves at a folder URL of their own.

MkDocs (with `use_directory_urls`, its default) serves `docs/guide/p.md` at `guide/p/` and
leaves a link that does not end in `.md` as written, so a browser reads `./setup/` there as
`guide/p/setup/`: a 404, though `docs/guide/setup.md` is beside the file. Hugo does the same
unless a link render hook resolves links from the page's file. KS022 passed such a link
because the file's folder found a page; it is dead on the site, and the finding says which
link the site serves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run


def _page(title: str, body: str) -> str:
    return FRONT.format(t=title) + PREAMBLE + body


SETUP = _page("Setup of the service", "## Part\n\nHow the service is set up.\n")
LINKS = (
    "## Links\n\n"
    "Read [the setup](./setup/), [its part](setup/#part), [from the URL](../setup/), "
    "[the file](./setup.md#part) and [without a slash](./setup).\n"
)
PAGE = _page("Guide page", LINKS)
# an index page is served at its folder's URL: `./setup/` there is `guide/setup/`
INDEX = _page(
    "Guide index", "## Links\n\nRead [the setup](./setup/) and [its part](setup/#part).\n"
)


def _ks022(repo: Path, files: dict[str, str]) -> list[str]:
    write(repo, files)
    commit_all(repo, "pages")
    found = run(repo, "--format", "concise", "--select", "KS022")
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS022 " in line]


def test_mkdocs_page_link_found_only_from_the_files_folder_is_dead(repo: Path) -> None:
    found = _ks022(
        repo,
        {
            "mkdocs.yml": "site_name: Guide\n",
            "docs/guide/setup.md": SETUP,
            "docs/guide/p.md": PAGE,
            "docs/guide/index.md": INDEX,  # served at its folder's URL: its reading is the file's
        },
    )
    where = (
        "the site serves this page at a folder URL of its own (docs/guide/p/), where the link names"
    )
    assert found == [
        f'docs/guide/p.md:11:18: KS022 link "./setup/": {where} docs/guide/p/setup, which does '
        "not exist (docs/guide/setup.md is found only from the file's folder): "
        'write "../setup/" (dead-link)',
        f'docs/guide/p.md:11:40: KS022 link "setup/#part": {where} docs/guide/p/setup, which '
        "does not exist (docs/guide/setup.md is found only from the file's folder): "
        'write "../setup/#part" (dead-link)',
        f'docs/guide/p.md:11:131: KS022 link "./setup": {where} docs/guide/p/setup, which does '
        "not exist (docs/guide/setup.md is found only from the file's folder): "
        'write "../setup" (dead-link)',
    ], found


@pytest.mark.parametrize(
    ("files", "served"),
    [
        ({"hugo.toml": "title = 'Guide'\n"}, True),
        # a link render hook of the project's may resolve links from the page's file
        (
            {
                "hugo.toml": "title = 'Guide'\n",
                "layouts/_default/_markup/render-link.html": "<a href={{ .Destination }}></a>\n",
            },
            False,
        ),
        # Hugo's own hook is on for a site of two languages, or when a config turns it on
        (
            {
                "hugo.toml": "[languages.en]\nweight = 1\n[languages.de]\nweight = 2\n",
            },
            False,
        ),
        # ... as a YAML map, or in the config folder's file of their own: not counted
        ({"hugo.yaml": "languages:\n  en:\n    weight: 1\n  de:\n    weight: 2\n"}, False),
        ({"hugo.toml": "title = 'G'\n", "config/_default/languages.toml": "[en]\n[de]\n"}, False),
        ({"hugo.toml": "[markup.goldmark.renderHooks.link]\nenableDefault = true\n"}, False),
        # permalinks serve pages at URLs whose folders are not their files'
        ({"hugo.toml": "[permalinks]\nguide = '/:year/:slug/'\n"}, False),
        # a theme or module not in the tree may have a hook; one in `themes/` is read
        ({"hugo.toml": "theme = 'docs-theme'\n"}, False),
        ({"hugo.toml": "[[module.imports]]\npath = 'github.com/x/theme'\n"}, False),
        (
            {
                "hugo.toml": "theme = 'docs-theme'\n",
                "themes/docs-theme/layouts/_default/single.html": "{{ .Content }}\n",
            },
            True,
        ),
        # pages served at `p.html` (uglyURLs), and a project no site config holds (GitHub)
        ({"hugo.toml": "uglyURLs = true\n"}, False),
        ({}, False),
    ],
)
def test_hugo_page_link_is_dead_unless_a_hook_may_read_it_from_the_file(
    repo: Path, files: dict[str, str], served: bool
) -> None:
    found = _ks022(repo, {**files, "content/guide/setup.md": SETUP, "content/guide/p.md": PAGE})
    assert len(found) == (3 if served else 0), found
    if served:
        assert found[0].startswith(
            'content/guide/p.md:11:18: KS022 link "./setup/": the site serves this page at a '
            "folder URL of its own (content/guide/p/), where the link names content/guide/p/setup"
        ), found


def test_mkdocs_without_directory_urls_reads_links_from_the_files_folder(repo: Path) -> None:
    found = _ks022(
        repo,
        {
            "mkdocs.yml": "site_name: Guide\nuse_directory_urls: false\n",
            "docs/guide/setup.md": SETUP,
            "docs/guide/p.md": PAGE,
        },
    )
    assert found == []
