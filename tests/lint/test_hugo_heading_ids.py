"""KS023 on a Hugo site's anchors: the ids its config's `autoHeadingIDType` makes, and the
headings a shortcode pulls in at build time.

Falco's Hugo config sets `[markup.goldmark.parser] autoHeadingIDType = "blackfriday"`, so
"Road to Falco 1.0.0" is `#road-to-falco-1-0-0` and "What's new?" is `#what-s-new` on the
site; KS023 knew GitHub's slugs only (`#road-to-falco-100`, `#whats-new`) and called the
site's valid links dead. Its supported-fields page is made by `{{< markdown_inline >}}`
from generated files: links to `#field-class-evt` were called dead too.
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
BLACKFRIDAY = (
    'baseURL = "/"\n\n[markup]\n  [markup.goldmark]\n    [markup.goldmark.parser]\n'
    '      # autoHeadingIDType = "github"\n'
    '      autoHeadingIDType = "blackfriday"\n'
)


def _page(title: str, body: str) -> str:
    return FRONT.format(t=title) + PREAMBLE + body


ROADMAP = _page(
    "Roadmap",
    "## Road to Falco 1.0.0\n\n"
    + PROSE
    + "## What's new? ⚙️\n\n"
    + PROSE
    + "## Setup\n\n"
    + PROSE
    + "## Setup\n\n"
    + PROSE
    + "## Manual setup {#by-hand}\n\n"
    + PROSE
    + "## Breaking changes ⚠️\n\n"
    + PROSE,
)
API = _page("Plugin API", "### get_metrics\n\n" + PROSE)
BLOG = _page(
    "Release",
    "## Links\n\n"
    "See [the road](/docs/roadmap/#road-to-falco-1-0-0), [news](../docs/roadmap.md#what-s-new), "
    "[the second setup](/docs/roadmap/#setup-1), [by hand](/docs/roadmap/#by-hand), "
    "[metrics](/docs/api/#get-metrics) and [GitHub's](/docs/roadmap/#road-to-falco-100).\n\n"
    "Dead: [typo](/docs/roadmap/#road-to-falco-2-0-0), [case](/docs/roadmap/#What-s-New) "
    "and [a dash](/docs/roadmap/#breaking-changes-).\n",
)
SITE = {
    "config/_default/config.toml": BLACKFRIDAY,
    "content/en/docs/roadmap.md": ROADMAP,
    "content/en/docs/api.md": API,
    "content/en/blog/release.md": BLOG,
}


def _lint(repo: Path, *args: str) -> list[str]:
    found = run(repo, "--format", "concise", "--select", "KS022,KS023", *args)
    assert found.returncode in (0, 1), found.stderr
    return [line for line in found.stdout.splitlines() if ": KS02" in line]


def test_blackfriday_ids_of_a_hugo_site_are_anchors(repo: Path) -> None:
    write(repo, SITE)
    commit_all(repo, "site")
    found = _lint(repo, "content/")
    assert len(found) == 3, found
    assert found[0].startswith(
        'content/en/blog/release.md:13:14: KS023 anchor "#road-to-falco-2-0-0": no heading of '
        "content/en/docs/roadmap.md makes it"
    ), found
    assert found[1] == (
        'content/en/blog/release.md:13:58: KS023 anchor "#What-s-New" differs in case from '
        '"#what-s-new" of content/en/docs/roadmap.md (dead-anchor)'
    ), found
    # GitHub's `#breaking-changes-️` is as close, but the site renders `#breaking-changes`
    assert found[2] == (
        'content/en/blog/release.md:13:98: KS023 anchor "#breaking-changes-": no heading of '
        'content/en/docs/roadmap.md makes it; did you mean "#breaking-changes"? (dead-anchor)'
    ), found
    # --fix corrects all three to the site's ids and leaves every valid fragment as it is
    run(repo, "--fix", "--select", "KS023", "content/")
    fixed = (repo / "content/en/blog/release.md").read_text(encoding="utf-8")
    want = BLOG.replace("#What-s-New", "#what-s-new").replace("changes-)", "changes)")
    want = want.replace("falco-2-0-0", "falco-1-0-0")
    assert fixed == want


def test_the_nearest_hugo_config_governs_and_github_ascii_folds_accents(repo: Path) -> None:
    write(repo, SITE)
    cafe = _page("Cafe", "## Café déjà vu\n\n" + PROSE + "## Road to 2.0\n\n" + PROSE)
    linker = _page(
        "Linker",
        "## Links\n\n[ascii](cafe.md#cafe-deja-vu), [GitHub's](cafe.md#café-déjà-vu), "
        "[blackfriday's](cafe.md#road-to-2-0).\n",
    )
    # a nested project with its own config (YAML): GitHub's ASCII ids, not the root's
    yaml = "markup:\n  goldmark:\n    parser:\n      autoHeadingIDType: github-ascii\n"
    write(repo, {"nested/hugo.yaml": yaml, "nested/docs/cafe.md": cafe})
    write(repo, {"nested/docs/linker.md": linker})
    # and one whose JSON config sets GitHub's (Hugo's default)
    github = '{"markup": {"goldmark": {"parser": {"autoHeadingIDType": "github"}}}}\n'
    write(repo, {"plain/hugo.json": github})
    write(repo, {"plain/docs/cafe.md": cafe, "plain/docs/linker.md": linker})
    commit_all(repo, "site")
    assert _lint(repo, "nested/") == [
        'nested/docs/linker.md:11:82: KS023 anchor "#road-to-2-0": no heading of '
        'nested/docs/cafe.md makes it; did you mean "#road-to-20"? (dead-anchor)'
    ]
    plain = _lint(repo, "plain/")
    assert [line.split(" KS023 ")[1].split(":")[0] for line in plain] == [
        'anchor "#cafe-deja-vu"',
        'anchor "#road-to-2-0"',
    ], plain


def test_blackfriday_ids_when_the_corpus_is_slimmed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past corpus.KEEP_CHARS a page's anchors are kept with its scan, not read again
    write(repo, SITE)
    commit_all(repo, "site")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    report = run_lint([Path("content")], overrides={"select": ["KS023"]}).report
    found = [(v.rule, v.line, v.column) for f in report.files for v in f.violations]
    assert found == [("KS023", 13, 14), ("KS023", 13, 58), ("KS023", 13, 98)]


FIELDS = _page(
    "Supported fields",
    '## Fields\n\n{{< markdown_inline\n    contentPath="/docs/fields/generated.md"\n>}}\n',
)
NOTE = _page("Note", '{{% pageinfo color="info" %}}\nA note.\n{{% /pageinfo %}}\n\n## Kept\n')
STYLE = _page(
    "Style guide",
    "## Links\n\n"
    "See [evt](/docs/fields/#field-class-evt), [fields](/docs/fields/#fields), "
    "[a note](/docs/note/#gone) and [kept](/docs/note/#kept).\n",
)


@pytest.mark.parametrize("slim", [False, True])
def test_a_page_whose_shortcode_pulls_in_headings_is_not_checked(
    repo: Path, monkeypatch: pytest.MonkeyPatch, *, slim: bool
) -> None:
    write(repo, {"hugo.toml": 'baseURL = "/"\n', "content/docs/fields.md": FIELDS})
    write(repo, {"content/docs/note.md": NOTE, "content/docs/style.md": STYLE})
    commit_all(repo, "site")
    monkeypatch.chdir(repo)
    if slim:
        monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    result = run_lint([Path("content")], overrides={"select": ["KS023"]})
    found = [(f.path, v.message) for f in result.report.files for v in f.violations]
    # a shortcode that holds its own content (`pageinfo`) pulls nothing in: still checked
    assert found == [
        ("content/docs/style.md", 'anchor "#gone": no heading of content/docs/note.md makes it')
    ]
    if not slim:
        summary = run(repo, "--select", "KS023", "content/").stdout
        reason = "anchor into a page whose shortcodes may make headings lint cannot read (1)"
        assert reason in summary, summary
