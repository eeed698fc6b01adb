"""KS023 on a site page's link to its site's home, `/` (`/#part`).

`/` on a page of an MkDocs or Hugo site is the site's home, which always exists; a
fragment on it names a heading of the home page (MkDocs' `docs/index.md`, Hugo's
`content/_index.md`). Lint counted every such link as a site-absolute link it could not
check, so `/#strat` passed though the home page has no such heading.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run

HOME = FRONT.format(t="Home of the site") + PREAMBLE + "## Start\n\nWhere to start.\n"
PAGE = (
    FRONT.format(t="Guide page")
    + PREAMBLE
    + "## Links\n\nGo [home](/), to [the start](/#start) or to [a typo](/#strat).\n"
)
TYPO = 'p.md:11:54: KS023 anchor "#strat": no heading of {home} makes it (dead-anchor)'


def _lint(repo: Path, files: dict[str, str]) -> tuple[list[str], str]:
    write(repo, files)
    commit_all(repo, "pages")
    found = run(repo, "--format", "concise", "--select", "KS022,KS023")
    assert found.returncode in (0, 1), found.stderr
    summary = run(repo, "--select", "KS022,KS023")
    lines = [line for line in found.stdout.splitlines() if ": KS02" in line]
    return lines, summary.stdout + summary.stderr


@pytest.mark.parametrize(
    ("files", "page", "home"),
    [
        (
            {"mkdocs.yml": "site_name: Guide\nsite_url: https://guide.example.org/\n"},
            "docs/guide/p.md",
            "docs/index.md",
        ),
        (
            {"hugo.toml": "baseURL = 'https://guide.example.org/'\n"},
            "content/guide/p.md",
            "content/_index.md",
        ),
    ],
)
def test_a_fragment_of_the_site_home_is_checked_against_its_home_page(
    repo: Path, files: dict[str, str], page: str, home: str
) -> None:
    found, summary = _lint(repo, {**files, home: HOME, page: PAGE})
    assert found == [page.rpartition("/")[0] + "/" + TYPO.format(home=home)], found
    assert "site-absolute link" not in summary, summary  # none of the three is left unchecked


def test_the_home_of_a_site_served_below_its_domains_root_is_not_judged(repo: Path) -> None:
    # `/` on https://x.example.org/guide/ is the domain's root, not this site's home
    mkdocs = "site_name: Guide\nsite_url: https://x.example.org/guide/\n"
    files = {"mkdocs.yml": mkdocs, "docs/index.md": HOME, "docs/guide/p.md": PAGE}
    found, summary = _lint(repo, files)
    assert found == [], found
    # `/` itself is always served; its fragments are counted as not checked
    assert "site-absolute link (2)" in summary, summary
