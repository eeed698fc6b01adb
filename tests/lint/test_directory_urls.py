"""KS022, KS023 and KS024 on directory-style links (MkDocs' and Hugo's pretty URLs).

A site with directory URLs serves `a/b/page.md` at `a/b/page/`, so a link written with a
trailing slash in that page is read from one folder deeper than the file's:
`../../install/nginx/#opt-timeout` in `docs/ref/routing/ingress.md` names
`docs/ref/install/nginx.md`. KS022 read it from the file's folder only and failed the
commit gate on it (`docs/install/nginx does not exist`); KS024 rewrote such a link of a
moved page to what it named from the page's old folder.
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

NGINX = (
    FRONT.format(t="Nginx provider options")
    + PREAMBLE
    + "## Options\n\n"
    + '<a id="opt-timeout"></a>The timeout option says how long to wait for a backend.\n'
)
INGRESS = (
    FRONT.format(t="Ingress routing annotations")
    + PREAMBLE
    + "## Annotations\n\n"
    + "See [the timeout](../../install/nginx/#opt-timeout) and "
    + "[the provider](../../install/nginx/).\n\n"
    + "Not an option: [a typo](../../install/nginx/#opt-timeot).\n\n"
    + "Gone: [removed](../../install/removed/#opt-x).\n\n"
    + 'As a [reference][opt], and as <a href="../../install/nginx/#opt-timeout">HTML</a>.\n\n'
    + "[opt]: ../../install/nginx/#opt-timeout\n"
)
INDEX = (
    FRONT.format(t="Routing overview page")
    + PREAMBLE
    + "## Pages\n\n"
    + "Read [the ingress annotations](ingress/#annotations) first, [again][a], "
    + '<a href="ingress/">and again</a>.\n\n'
    + "[a]: ingress/#annotations\n"
)


def _lint(repo: Path, *args: str) -> str:
    found = run(repo, "--format", "concise", "--select", "KS022,KS023,KS024", *args)
    assert found.returncode in (0, 1), found.stderr
    return found.stdout


def test_directory_style_links_resolve_from_the_pages_url(repo: Path) -> None:
    pages = {
        "docs/ref/install/nginx.md": NGINX,
        "docs/ref/routing/ingress.md": INGRESS,
        "docs/ref/routing/index.md": INDEX,
    }
    write(repo, pages)
    commit_all(repo, "pages")
    found = _lint(repo, "docs/")
    lines = [line for line in found.splitlines() if ": KS02" in line]
    assert lines == [
        # the fragment is checked against the page the link names from the page's URL
        'docs/ref/routing/ingress.md:13:25: KS023 anchor "#opt-timeot": no heading of '
        'docs/ref/install/nginx.md makes it; did you mean "#opt-timeout"? (dead-anchor)',
        # dead from both folders: the message names the path read from the file's folder
        'docs/ref/routing/ingress.md:15:17: KS022 link "../../install/removed/#opt-x": '
        "docs/install/removed does not exist (dead-link)",
    ], found
    # --fix corrects the typo and writes nothing else (the found links keep their paths)
    run(repo, "--fix", "--select", "KS022,KS023,KS024", "docs/")
    fixed = INGRESS.replace("#opt-timeot", "#opt-timeout")
    assert (repo / "docs/ref/routing/ingress.md").read_text(encoding="utf-8") == fixed
    assert (repo / "docs/ref/routing/index.md").read_text(encoding="utf-8") == INDEX


def test_directory_style_links_resolve_the_same_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's links are placed by the two-pass scan, not the one pass
    write(repo, {"docs/ref/install/nginx.md": NGINX, "docs/ref/routing/ingress.md": INGRESS})
    write(repo, {"docs/ref/routing/index.md": INDEX})
    commit_all(repo, "pages")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("docs")], overrides={"select": ["KS022", "KS023"]}).report
    found = [(v.rule, v.line, v.column) for f in report.files for v in f.violations]
    assert found == [("KS023", 13, 25), ("KS022", 15, 17)]


def test_a_moved_pages_directory_style_link_is_not_rewritten_for_its_old_folder(
    repo: Path,
) -> None:
    # docs/old/deep/p.md links `../nginx/`: from its old folder that named the folder
    # docs/old/nginx/; moved to docs/guide/p.md, it names docs/guide/nginx.md from its URL
    page = FRONT.format(t="Moved guide page") + PREAMBLE + "## Links\n\nSee [nginx](../nginx/).\n"
    write(repo, {"docs/old/deep/p.md": page, "docs/old/nginx/notes.txt": "notes\n"})
    write(repo, {"docs/guide/nginx.md": NGINX})
    commit_all(repo, "before")
    git(repo, "mv", "docs/old/deep/p.md", "docs/guide/p.md")
    commit_all(repo, "move")
    assert "KS02" not in _lint(repo, "docs/guide/p.md")
    run(repo, "--fix", "--select", "KS022,KS023,KS024", "docs/guide/p.md")
    assert (repo / "docs/guide/p.md").read_text(encoding="utf-8") == page
