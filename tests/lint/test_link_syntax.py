"""The path rules check every link CommonMark reads, and only those: destinations with
balanced parentheses or in `<...>` (a space in the name), reference definitions in `<...>`,
and no link after an escaped `[`; `lint --fix` writes a destination that still parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_targets import _one_pass_is_two_pass

PAGE = "---\ntitle: Link Syntax\ntags: [a, b, c]\n---\n# Link Syntax\n\n"
TARGET = "---\ntitle: Target\ntags: [a, b, c]\n---\n# Target\n\n" + "Words to read. " * 6 + "\n"


def _concise(repo: Path, *paths: str) -> list[str]:
    result = run(repo, "--format", "concise", "--select", "KS022,KS024", *paths)
    return result.stdout.splitlines()


def test_links_with_parentheses_or_angle_destinations_are_checked(repo: Path) -> None:
    body = (
        "[a](nope_(x).md) and [b](<no such file.md>) and ![i](<no img.png>).\n\n"
        "[ok](foo_(bar).md) and [ok too](<file with space.md>).\n"
    )
    write(
        repo,
        {
            "docs/page.md": PAGE + body,
            "docs/foo_(bar).md": TARGET,
            "docs/file with space.md": TARGET,
        },
    )
    # before: nothing reported; each dead one passed silently
    assert _concise(repo, "docs/page.md") == [
        'docs/page.md:7:5: KS022 link "nope_(x).md": docs/nope_(x).md does not exist (dead-link)',
        'docs/page.md:7:26: KS022 link "no such file.md": docs/no such file.md does not exist '
        "(dead-link)",
        'docs/page.md:7:54: KS022 image "no img.png": docs/no img.png does not exist (dead-link)',
    ]


def test_reference_definitions_in_angle_brackets_name_the_whole_file(repo: Path) -> None:
    body = (
        "Use [s2] and [s3] and [s4].\n\n"
        "[s2]: <file with space.md>\n"
        '[s3]: <file with space.md> "A title"\n'
        "[s4]: <gone with space.md>\n"
    )
    write(repo, {"docs/guide/page.md": PAGE + body, "docs/guide/file with space.md": TARGET})
    # before: `KS022 reference definition "file": docs/guide/file does not exist` twice
    assert _concise(repo, "docs/guide/page.md") == [
        'docs/guide/page.md:11:7: KS022 reference definition "gone with space.md": '
        "docs/guide/gone with space.md does not exist (dead-link)"
    ]


def test_an_escaped_opening_bracket_holds_no_link(repo: Path) -> None:
    body = "Escaped \\[esc](nope-a.md) here.\n\nNot escaped \\\\[real](nope-r.md) here.\n"
    write(repo, {"docs/page.md": PAGE + body})
    # before: KS022 for nope-a.md too, text GitHub shows as text
    assert _concise(repo, "docs/page.md") == [
        'docs/page.md:9:22: KS022 link "nope-r.md": docs/nope-r.md does not exist (dead-link)'
    ]


@pytest.mark.parametrize(
    ("old", "new", "written", "fixed"),
    [
        ("foo_(bar).md", "foo bar.md", "[q](foo_(bar).md)", "[q](<foo bar.md>)"),
        ("foo bar.md", "foo_(bar.md", "[q](<foo bar.md>)", "[q](<foo_(bar.md>)"),
        ("plain.md", "half_(open.md", "[q](plain.md#part)", "[q](half_\\(open.md#part)"),
        ("a b.md", "c d.md", "[q]: <a b.md>", "[q]: <c d.md>"),
        ("x.md", "y (1).md", "[q]: x.md", "[q]: <y (1).md>"),
    ],
)
def test_lint_fix_writes_a_moved_destination_that_still_parses(
    repo: Path, old: str, new: str, written: str, fixed: str
) -> None:
    tail = "\n\nSee [q].\n" if written.startswith("[q]:") else "\n"
    moved = TARGET + "\n## Part\n\nMore words.\n"
    write(repo, {f"docs/{old}": moved, "docs/page.md": PAGE + written + tail})
    commit_all(repo, "add")
    git(repo, "mv", f"docs/{old}", f"docs/{new}")
    commit_all(repo, "rename")
    # before: the first three gave no KS024 (the link was never read) and nothing was fixed
    found = _concise(repo, "docs/page.md")
    assert len(found) == 1 and " KS024 " in found[0], found
    result = run(repo, "--fix", "--select", "KS022,KS024", "docs/page.md")
    assert result.returncode == 0, result.stdout + result.stderr
    text = (repo / "docs" / "page.md").read_text(encoding="utf-8")
    assert text == PAGE + fixed + tail
    assert _concise(repo, "docs/page.md") == []


def test_one_pass_and_two_pass_agree_on_parentheses_angles_and_escapes() -> None:
    body = (
        "# Tricky\n\n[a](nope_(x).md) [b](<no such file.md>) ![i](<no img.png>)\n"
        "Escaped \\[esc](nope-a.md), \\\\[real](nope-r.md), x](nope-c.md), [p](a\\(b.md)\n"
        "\n[s2]: <file with space.md>\n"  # a definition starts a paragraph (CommonMark 4.7)
        '[s3]: <guide.md> "A title"\n'
    )
    wanted = _one_pass_is_two_pass(body)
    assert [t.ref.target for t in wanted] == [
        "nope_(x).md",
        "no such file.md",
        "no img.png",
        "nope-r.md",
        "a(b.md",
        "file with space.md",
    ]
