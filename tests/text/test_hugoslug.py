"""Hugo's heading ids under `autoHeadingIDType` (`text.hugoslug`), and the setting read from
its config in TOML, YAML and JSON."""

from __future__ import annotations

from kenso_git.text.hugoslug import BLACKFRIDAY
from kenso_git.text.hugoslug import GITHUB_ASCII
from kenso_git.text.hugoslug import blackfriday_slug
from kenso_git.text.hugoslug import github_ascii_slug
from kenso_git.text.hugoslug import hugo_ids
from kenso_git.text.hugoslug import id_type
from kenso_git.text.hugoslug import pulls_content


def test_blackfriday_slugs() -> None:
    assert blackfriday_slug("Road to Falco 1.0.0") == "road-to-falco-1-0-0"
    assert blackfriday_slug("What’s new? TL;DR") == "what-s-new-tl-dr"
    assert blackfriday_slug("get_metrics") == "get-metrics"
    assert blackfriday_slug("Breaking changes ⚠️") == "breaking-changes"
    assert blackfriday_slug("  Ünïcode²  ") == "ünïcode²"


def test_github_ascii_slugs() -> None:
    assert github_ascii_slug("Café déjà vu") == "cafe-deja-vu"
    assert github_ascii_slug("Breaking changes ⚠️") == "breaking-changes-"
    assert github_ascii_slug("get_metrics & more") == "get_metrics--more"


def test_repeated_headings_are_numbered_past_taken_ids() -> None:
    headings = [(None, "Setup"), ("setup-1", "Mine"), (None, "Setup"), (None, "Setup"), (None, "")]
    assert hugo_ids(BLACKFRIDAY, headings) == {"setup", "setup-2", "setup-3", "heading"}
    many = [(None, "x")] * 2000
    ids = hugo_ids(GITHUB_ASCII, many)
    assert len(ids) == 2000 and "x-1999" in ids


def test_the_setting_in_each_config_format() -> None:
    assert (
        id_type('[markup.goldmark.parser]\n  autoHeadingIDType = "blackfriday"\n') == "blackfriday"
    )
    assert id_type("markup.goldmark.parser.autoHeadingIDType = 'github-ascii'\n") == "github-ascii"
    assert id_type("markup:\n  goldmark:\n    parser:\n      autoheadingidtype: Blackfriday\n") == (
        "blackfriday"
    )
    assert id_type('{"markup":{"goldmark":{"parser":{"autoHeadingIDType":"github"}}}}') == "github"
    assert id_type('# autoHeadingIDType = "blackfriday"\nbaseURL = "/"\n') is None


def test_shortcodes_that_pull_in_content() -> None:
    body = '{{< markdown_inline\n  contentPath="/x.md"\n>}}\n'
    assert pulls_content(body, [(0, len(body))])
    assert not pulls_content(body, [(len(body), len(body))])  # in code: no call
    held = '{{% pageinfo %}}\nA note.\n{{% /pageinfo %}}\nSee {{< readfile "x" >}} inline.\n'
    assert not pulls_content(held, [(0, len(held))])
    assert pulls_content('  {{% include "part.md" %}}\n', [(0, 28)])
