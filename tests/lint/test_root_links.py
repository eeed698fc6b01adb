"""A link to the repository's root (`../` in `docs/a.md`, `../../` deeper, `/` on GitHub).

The root was said to be "outside the repository" (counted as not checked offline), so a dead
`#fragment` on it passed. It is a folder of the tree like any other: it exists, and its
fragment is its README's (GitHub) or the page its site serves at that URL (MkDocs). Links
that climb above the root are still outside.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run

README = FRONT.format(t="Project overview") + PREAMBLE + "## Install\n\nInstall it.\n"
PAGE = (
    FRONT.format(t="Guide page one")
    + PREAMBLE
    + "## Usage\n\n"
    + "Back [home](../), [top](/), [dotted](..), [install](../#install) and "
    + "[gone](../#gone); [above](../../x.md) leaves.\n"
)
DEEP = (
    FRONT.format(t="Guide page two")
    + PREAMBLE
    + "## Deeper\n\n"
    + "Back [root](../../), [install](../../#install), [gone](../../#gone) and "
    + "[above](../../../) leaves.\n"
)
OUT = "link outside the repository"


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, {"README.md": README, "docs/a.md": PAGE, "docs/sub/b.md": DEEP})
    commit_all(tmp_path, "pages")
    return tmp_path


def _report(cwd: Path, *args: str) -> tuple[dict[str, int], list[str]]:
    """(the skipped links by reason, the KS022/KS023 findings as `path:line:col message`)."""
    found = run(cwd, "--format", "json", "--select", "KS022,KS023", *args)
    assert found.returncode in (0, 1), found.stderr
    report = json.loads(found.stdout)
    findings = [
        f"{v['file']}:{i['line']}:{i['column']} {i['message']}"
        for v in report["violations"]
        for i in v["issues"]
    ]
    return report["skipped"], findings


@pytest.mark.parametrize("where", [".", "docs", "docs/sub"])
def test_a_link_to_the_root_is_inside_and_its_fragment_is_the_readmes(
    plain: Path, where: str
) -> None:
    skipped, findings = _report(plain / where)
    # only the two links that climb above the root are outside
    assert skipped == {OUT: 2}
    assert findings == [
        'docs/a.md:11:77 anchor "#gone": no heading of README.md makes it',
        'docs/sub/b.md:11:56 anchor "#gone": no heading of README.md makes it',
    ]


def test_a_link_to_the_root_linted_from_a_subfolder_by_path(plain: Path) -> None:
    skipped, findings = _report(plain / "docs", "a.md")
    assert skipped == {OUT: 1}
    assert findings == ['docs/a.md:11:77 anchor "#gone": no heading of README.md makes it']


def test_a_root_link_on_an_mkdocs_page_is_read_from_its_url(tmp_path: Path) -> None:
    # docs/guide/a.md is served at guide/a/: `../../` is the site's root, docs/index.md
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    index = FRONT.format(t="Site home page") + PREAMBLE + "## Install\n\nInstall it.\n"
    page = (
        FRONT.format(t="Guide page one")
        + PREAMBLE
        + "Back [home](../../#install), [gone](../../#gone), [top](/) and [up](../../../).\n"
    )
    write(tmp_path, {"mkdocs.yml": "site_name: x\n", "docs/index.md": index})
    write(tmp_path, {"docs/guide/a.md": page, "README.md": README})
    commit_all(tmp_path, "site")
    skipped, findings = _report(tmp_path)
    # `../../` from the file's folder is the repository's root, `../../../` above it; `/` is
    # the site's root, not the repository's: always served (its fragment is judged only
    # where the site is at its domain's root: tests/lint/test_site_home_links.py)
    assert skipped == {OUT: 1}
    assert findings == ['docs/guide/a.md:9:37 anchor "#gone": no heading of docs/index.md makes it']
