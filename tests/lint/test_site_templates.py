"""A link destination that is a Hugo template is read the same way in an inline link, in
`<...>` and in a reference definition: a `ref`/`relref` shortcode is resolved as Hugo's
page finder resolves it (relative to the page, from a content root, by name) and its
fragment checked; any other template, and a `ref` no page of the tree answers, is counted
as not checked offline, never a KS022 with a path made of the template."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_targets import _one_pass_is_two_pass

PAGE = "---\ntitle: Hugo Links\ntags: [a, b, c]\n---\n# Hugo Links\n\n"
TARGET = "---\ntitle: Target\ntags: [a, b, c]\n---\n# Target\n\n## Widgets\n\nWords.\n"


def _lint(repo: Path, *paths: str) -> tuple[list[str], str]:
    shown = run(repo, "--format", "concise", "--select", "KS022,KS023,KS024", *paths)
    skipped = run(repo, "--select", "KS022,KS023,KS024", *paths).stdout
    line = next((x for x in skipped.splitlines() if "not checked offline" in x), "")
    return shown.stdout.splitlines(), line


def test_hugo_shortcode_destinations_are_resolved_or_counted_in_every_link_form(
    repo: Path,
) -> None:
    body = (
        '- inline [a]({{< relref "target.md" >}}) and [b]({{< relref "nothere.md" >}})\n'
        '- angle [c](<{{% relref "target.md" %}}>) and [d]({{< ref "target" >}}#widgets)\n'
        '- by name [n]({{< ref "deep" >}}), a bundle [u]({{% relref "bundle" %}}),\n'
        '  from the root [r]({{< relref "/guide/sibling.md" >}})\n'
        "- [v](/docs/{{< param version >}}/learning/api)\n\n"
        '[e]: {{< relref "target.md" >}}\n'
        "[rss]: {{% eturl rss %}}\n"
    )
    write(
        repo,
        {
            "docs/hugo.md": PAGE + body,
            "docs/target.md": TARGET,
            "docs/a/b/deep.md": TARGET,
            "docs/bundle/index.md": TARGET,
            "docs/guide/sibling.md": TARGET,
        },
    )
    commit_all(repo, "pages")
    findings, skipped = _lint(repo, "docs/hugo.md")
    # before: KS022 link "{{% relref "target.md" %}}": docs/{{% relref ... %}} does not
    # exist, and KS022 reference definition "{{<": docs/{{< does not exist; the inline ones
    # passed unread and uncounted
    assert findings == []
    assert skipped == (
        "not checked offline: Hugo ref to no page of the tree (1), site template (2)"
    )


def test_the_fragment_of_a_ref_is_checked_against_the_page_it_finds(repo: Path) -> None:
    body = (
        'See [in]({{< ref "target.md#nope" >}}) and [out]({{< relref "target" >}}#gone),\n'
        'and [fine]({{< ref "target.md#widgets" >}}), [case]({{< ref "target.md#Widgets" >}}).\n'
    )
    write(repo, {"docs/hugo.md": PAGE + body, "docs/target.md": TARGET})
    commit_all(repo, "pages")
    findings, _ = _lint(repo, "docs/hugo.md")
    assert findings == [
        'docs/hugo.md:7:10: KS023 anchor "#nope": no heading of docs/target.md makes it '
        "(dead-anchor)",
        'docs/hugo.md:7:50: KS023 anchor "#gone": no heading of docs/target.md makes it '
        "(dead-anchor)",
        'docs/hugo.md:8:53: KS023 anchor "#Widgets" differs in case from "#widgets" of '
        "docs/target.md (dead-anchor)",
    ]
    # a fix inside a shortcode is not offered: the text around the anchor is the template's
    result = run(repo, "--fix", "--select", "KS023", "docs/hugo.md")
    assert (repo / "docs" / "hugo.md").read_text(encoding="utf-8") == PAGE + body, result.stdout


def test_a_ref_two_content_roots_answer_leaves_its_anchor_unchecked(repo: Path) -> None:
    body = 'See [x]({{< ref "shared/page.md#nope" >}}).\n'
    write(
        repo,
        {
            "site/content/en/docs/hugo.md": PAGE + body,
            "site/content/en/shared/page.md": TARGET,
            "site/content/en/docs/shared/page.md": TARGET,
        },
    )
    commit_all(repo, "pages")
    findings, skipped = _lint(repo, "site/content/en/docs/hugo.md")
    # relative to the page first, as Hugo does: docs/shared/page.md, which lacks #nope
    assert [f.split(": ")[1] for f in findings] == ['KS023 anchor "#nope"']
    body = 'See [x]({{< ref "/shared/page.md#nope" >}}).\n'
    write(repo, {"site/content/en/docs/hugo.md": PAGE + body})
    findings, skipped = _lint(repo, "site/content/en/docs/hugo.md")
    # from the content root: content/en/ or content/en/docs/? both have the page
    assert findings == []
    assert skipped == "not checked offline: anchor of a Hugo ref to one of several pages (1)"


def test_one_pass_and_two_pass_agree_on_templates() -> None:
    body = (
        '# Tricky\n\n[a]({{< relref "guide.md#nope" >}}) [b]({{< relref "none.md" >}})\n'
        '[c](<{{% ref "guide" %}}>) [v](/x/{{< param v >}}/y) [w]({{< half)\n'
        '\n[e]: {{< relref "guide.md#setup" >}}\n'  # a definition starts a paragraph
        "[f]: {{% eturl rss %}}\n"
    )
    wanted = _one_pass_is_two_pass(body)
    # the ones with a fragment to check; the found one, the unfound and the others counted
    assert [t.ref.target for t in wanted] == [
        '{{< relref "guide.md#nope" >}}',
        '{{< relref "guide.md#setup" >}}',
    ]
