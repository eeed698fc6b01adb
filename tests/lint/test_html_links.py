"""The `href` of an HTML `<a>` and the `src` of an `<img>`, in an HTML block or inline, are
checked as Markdown links are (KS022, KS023, KS024), and `lint --fix` rewrites them for a
moved page; in code, in a comment or escaped they are text, as they are to a reader."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_targets import _one_pass_is_two_pass

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
TARGET = PAGE.format(t="Target") + "\n## Part\n\nMore words.\n"
BODY = (
    '\nMarkdown [link](target.md), HTML <a href="target.md">link</a>, '
    '<a href="nothere.md">dead</a>, <img src="nothere.png">.\n\n'
    "<p>\n  <a class='x' href='target.md#part'>part</a> <A HREF=target.md#nope>nope</A>\n"
    '  <img alt="t" src="{{ site.baseurl }}/logo.png"> <a href="https://example.com">w</a>\n'
    "</p>\n\n"
    '`<a href="code.md">` and <!-- <a href="comment.md"> --> and \\<a href="escaped.md">.\n\n'
    '```html\n<img src="fenced.png">\n```\n\n<a name="anchor-only">here</a>\n'
)


def _lint(repo: Path) -> tuple[list[str], str]:
    args = ("--select", "KS022,KS023,KS024", "docs/source.md")
    shown = run(repo, "--format", "concise", *args).stdout.splitlines()
    skipped = run(repo, *args).stdout
    return shown, next((x for x in skipped.splitlines() if "not checked" in x), "")


def test_html_links_and_images_are_checked_and_fixed_as_markdown_links_are(
    repo: Path,
) -> None:
    write(repo, {"docs/target.md": TARGET, "docs/source.md": PAGE.format(t="Source") + BODY})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/target.md", "docs/moved.md")
    commit_all(repo, "rename")
    renamed = "docs/target.md was renamed to docs/moved.md in"
    findings, skipped = _lint(repo)
    # before: only the Markdown link was reported, the HTML ones passed and went uncounted
    assert [f.split(" (")[0].split(f" {renamed} ")[0] for f in findings] == [
        "docs/source.md:9:17: KS024",
        "docs/source.md:9:43: KS024",
        'docs/source.md:9:73: KS022 HTML link "nothere.md": docs/nothere.md does not exist',
        'docs/source.md:9:105: KS022 HTML image "nothere.png": docs/nothere.png does not exist',
        "docs/source.md:12:22: KS024",
        "docs/source.md:12:55: KS024",
    ]
    assert skipped == "not checked offline: external URL (1), site template (1)"
    run(repo, "--fix", "--select", "KS024", "docs/source.md")
    text = (repo / "docs" / "source.md").read_text(encoding="utf-8")
    assert text == PAGE.format(t="Source") + BODY.replace("target.md", "moved.md")
    findings, _ = _lint(repo)
    assert [f.split(": ", 1)[1] for f in findings] == [
        'KS022 HTML link "nothere.md": docs/nothere.md does not exist (dead-link)',
        'KS022 HTML image "nothere.png": docs/nothere.png does not exist (dead-link)',
        'KS023 anchor "#nope": no heading of docs/moved.md makes it (dead-anchor)',
    ]


def test_an_html_value_is_read_and_written_with_its_entities(repo: Path) -> None:
    body = '\n<a href="a&amp;b.md">x</a> and <a href="c&amp;d.md">y</a>\n'
    write(
        repo, {"docs/a&b.md": TARGET, "docs/c&d.md": TARGET, "docs/s.md": PAGE.format(t="S") + body}
    )
    commit_all(repo, "pages")
    git(repo, "mv", "docs/c&d.md", "docs/e&f.md")
    commit_all(repo, "rename")
    run(repo, "--fix", "--select", "KS022,KS024", "docs/s.md")
    text = (repo / "docs" / "s.md").read_text(encoding="utf-8")
    assert text == PAGE.format(t="S") + body.replace("c&amp;d.md", "e&amp;f.md")


def test_one_pass_and_two_pass_agree_on_html_links() -> None:
    wanted = _one_pass_is_two_pass("# Tricky\n\n" + BODY.replace("target.md", "guide.md"))
    assert [t.ref.target for t in wanted] == [
        "nothere.md",
        "nothere.png",
        "guide.md#part",
        "guide.md#nope",
    ]
