"""KS022 and KS023 on page links as static sites write them: no extension, or site-absolute.

KEDA's docs link `./scaling-jobs` and `../reference/scaledobject-spec/#triggers` beside
`scaling-jobs.md` and `reference/scaledobject-spec.md` (a Hugo render hook, Docusaurus and
Jekyll serve them); Kubeflow's link `/docs/components/central-dash/profiles/`, served from
the Hugo content root `content/en/`. KS022 called all of them dead and failed the commit
gate on valid site docs; in the real Kubeflow layout it skipped the site-absolute ones, so
their anchors went unchecked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.lint import corpus
from kenso_git.lint.session import run_lint
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lint.test_cli import run


def _page(title: str, body: str) -> str:
    return FRONT.format(t=title) + PREAMBLE + body


JOBS = _page("Scaling jobs", "## Overview\n\nJobs scale one per event.\n")
SPEC = _page("ScaledObject spec", "## Triggers\n\nThe triggers of the object.\n")
SECTION = _page("Reference section", "## Pages\n\nThe reference pages.\n")
DEPLOYMENTS = _page(
    "Scaling deployments",
    "## Links\n\n"
    "See [jobs](./scaling-jobs), [its overview](scaling-jobs#overview), "
    "[the triggers](../reference/scaledobject-spec/#triggers), "
    "[again](../reference/scaledobject-spec#triggers) and [the section](../reference).\n\n"
    "Not a heading: [typo](./scaling-jobs#overviw).\n\n"
    "Gone: [removed](./removed-page#part) and [removed too](../reference/gone/).\n\n"
    'As a [reference][spec] and as <a href="scaling-jobs">HTML</a>.\n\n'
    "[spec]: ../reference/scaledobject-spec#triggers\n",
)
EXTENSIONLESS = {
    "docs/concepts/scaling-jobs.md": JOBS,
    "docs/concepts/scaling-deployments.md": DEPLOYMENTS,
    "docs/reference/scaledobject-spec.md": SPEC,
    "docs/reference/_index.md": SECTION,
}


def _lint(repo: Path, *args: str) -> list[str]:
    found = run(repo, "--format", "concise", "--select", "KS022,KS023,KS024", *args)
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS02" in line]


def test_extensionless_page_links_name_their_pages(repo: Path) -> None:
    # no site config: the page exists by every static site's reading of the link
    write(repo, EXTENSIONLESS)
    commit_all(repo, "pages")
    assert _lint(repo, "docs/") == [
        'docs/concepts/scaling-deployments.md:13:23: KS023 anchor "#overviw": no heading of '
        'docs/concepts/scaling-jobs.md makes it; did you mean "#overview"? (dead-anchor)',
        'docs/concepts/scaling-deployments.md:15:17: KS022 link "./removed-page#part": '
        "docs/concepts/removed-page does not exist (dead-link)",
        'docs/concepts/scaling-deployments.md:15:56: KS022 link "../reference/gone/": '
        "docs/reference/gone does not exist (dead-link)",
    ]
    # --fix corrects the typo and rewrites none of the links found as pages
    run(repo, "--fix", "--select", "KS022,KS023,KS024", "docs/")
    fixed = DEPLOYMENTS.replace("#overviw", "#overview")
    assert (repo / "docs/concepts/scaling-deployments.md").read_text(encoding="utf-8") == fixed


def test_extensionless_links_resolve_the_same_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's links are placed by the two-pass scan, not the one pass
    write(repo, EXTENSIONLESS)
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("docs")], overrides={"select": ["KS022", "KS023"]}).report
    found = [(v.rule, v.line, v.column) for f in report.files for v in f.violations]
    assert found == [("KS023", 13, 23), ("KS022", 15, 17), ("KS022", 15, 56)]


def test_a_moved_pages_extensionless_link_is_not_rewritten(repo: Path) -> None:
    # docs/old/p.md linked `guide` (the folder docs/old/guide/); moved beside guide.md, the
    # link names that page, and KS024 must not rewrite it for the old folder
    page = _page("Moved page", "## Links\n\nSee [the guide](guide).\n")
    write(repo, {"docs/old/p.md": page, "docs/old/guide/notes.txt": "notes\n"})
    write(repo, {"docs/new/guide.md": JOBS})
    commit_all(repo, "before")
    git(repo, "mv", "docs/old/p.md", "docs/new/p.md")
    commit_all(repo, "move")
    assert _lint(repo, "docs/new/p.md") == []
    run(repo, "--fix", "--select", "KS022,KS023,KS024", "docs/new/p.md")
    assert (repo / "docs/new/p.md").read_text(encoding="utf-8") == page


PROFILES = _page("Profiles", "## Create a profile\n\nHow to create one.\n")
HUB = _page(
    "Model hub",
    "## Links\n\n"
    "Read [profiles](/docs/components/profiles/), [again](/docs/components/profiles), "
    "[creating one](/docs/components/profiles/#create-a-profile) and "
    "[the section](/docs/components/).\n\n"
    "Not a heading: [typo](/docs/components/profiles/#create-profile).\n\n"
    "Served from elsewhere: [the API](/docs/api/v1/).\n\n"
    "As a [reference][typo].\n\n"
    "[typo]: /docs/components/profiles/#create-profile\n",
)
# the repository's own README, with the hub's link: no content root above it reads
# `/docs/...` as a page (the link's answer is its folder's, not the whole tree's)
README = _page(
    "Website",
    "## Docs\n\nA [link][p].\n\n[p]: /docs/components/profiles/#create-profile\n",
)


def test_site_absolute_links_resolve_from_a_hugo_content_root(repo: Path) -> None:
    write(repo, {"config.toml": 'baseURL = "/"\n', "README.md": README})
    write(repo, {"content/en/docs/components/profiles.md": PROFILES})
    write(repo, {"content/en/docs/components/_index.md": SECTION})
    write(repo, {"content/en/docs/components/hub/overview.md": HUB})
    commit_all(repo, "site")
    found = run(repo, "--format", "concise", "--select", "KS022,KS023", ".")
    assert found.returncode == 1, found.stderr
    lines = [line for line in found.stdout.splitlines() if ": KS02" in line]
    assert lines == [
        'content/en/docs/components/hub/overview.md:13:23: KS023 anchor "#create-profile": '
        "no heading of content/en/docs/components/profiles.md makes it; did you mean "
        '"#create-a-profile"? (dead-anchor)',
        'content/en/docs/components/hub/overview.md:19:9: KS023 anchor "#create-profile": '
        "no heading of content/en/docs/components/profiles.md makes it; did you mean "
        '"#create-a-profile"? (dead-anchor)',
    ], found.stdout
    # no page anywhere: the site may serve it (static files, another repository), and the
    # README's link no content root above it reads: not checked, counted
    summary = run(repo, "--select", "KS022,KS023", ".").stdout
    assert "site-absolute link (2)" in summary, summary


def test_site_absolute_page_links_outside_a_site_project(repo: Path) -> None:
    # Kubeflow's pages copied out of their repository: `docs/` is the root's folder
    docs = {
        "docs/components/profiles.md": PROFILES,
        "docs/components/_index.md": SECTION,
        "docs/components/hub/overview.md": HUB,
    }
    write(repo, docs)
    commit_all(repo, "pages")
    assert _lint(repo, "docs/") == [
        'docs/components/hub/overview.md:13:23: KS023 anchor "#create-profile": no heading '
        'of docs/components/profiles.md makes it; did you mean "#create-a-profile"? '
        "(dead-anchor)",
        # no site config says the site may serve it from elsewhere: dead
        'docs/components/hub/overview.md:15:34: KS022 link "/docs/api/v1/": docs/api/v1 '
        "does not exist (dead-link)",
        'docs/components/hub/overview.md:19:9: KS023 anchor "#create-profile": no heading '
        'of docs/components/profiles.md makes it; did you mean "#create-a-profile"? '
        "(dead-anchor)",
    ]
