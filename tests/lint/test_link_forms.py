"""Lint checks and fixes the CommonMark link forms `text.mdlinks` reads beyond one line and
quoted titles, and destinations with character references (t49a #3 and #10): a title in
parentheses, a title on the next line, a definition whose destination is on the next line
were invisible to KS022 and KS024; `c&amp;d.md` was a KS022 though it links to `c&d.md`."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_targets import _one_pass_is_two_pass

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
LINKS = PAGE.format(t="Links") + (
    "\nParen title [p](old.md (paren title)) and a dead one [d](missing.md (t)).\n"
    '[n](missing2.md\n"title") ok.\n'
    "\n[ref3]:\n  missing3.md\n[ref4]: old.md\n"
)


def _concise(repo: Path, *paths: str) -> list[str]:
    shown = run(repo, "--format", "concise", "--select", "KS022,KS024", *paths)
    return shown.stdout.splitlines()


def test_links_over_lines_and_with_paren_titles_are_checked_and_fixed(repo: Path) -> None:
    write(repo, {"docs/old.md": PAGE.format(t="Old"), "docs/links.md": LINKS})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/old.md", "docs/new.md")
    commit_all(repo, "rename")
    renamed = "docs/old.md was renamed to docs/new.md in "
    renamed += git(repo, "log", "-1", "--format=%h").strip()
    # before: only the last line (`[ref4]: old.md`) was read
    assert _concise(repo, "docs/links.md") == [
        f"docs/links.md:9:17: KS024 {renamed}; lint --fix rewrites the link (moved-target)",
        'docs/links.md:9:58: KS022 link "missing.md": docs/missing.md does not exist (dead-link)',
        'docs/links.md:10:5: KS022 link "missing2.md": docs/missing2.md does not exist (dead-link)',
        'docs/links.md:14:3: KS022 reference definition "missing3.md": docs/missing3.md does '
        "not exist (dead-link)",
        f"docs/links.md:15:9: KS024 {renamed}; lint --fix rewrites the reference definition "
        "(moved-target)",
    ]
    run(repo, "--fix", "docs/links.md")
    text = (repo / "docs/links.md").read_text(encoding="utf-8")
    assert text == LINKS.replace("(old.md (", "(new.md (").replace("]: old.md", "]: new.md")


def test_character_references_in_a_destination_name_the_file(repo: Path) -> None:
    page = PAGE.format(t="Entities") + (
        '\n[a](c&amp;d.md) [b](c&#x26;d.md) <a href="c&amp;d.md">html</a> [g](c&amp;gone.md)\n'
    )
    write(repo, {"docs/c&d.md": PAGE.format(t="Q and A"), "docs/ent.md": page})
    commit_all(repo, "pages")
    # before: KS022 link "c&amp;d.md": docs/c&amp;d.md does not exist, and
    # KS022 link "c&#x26;d.md": docs/c& does not exist
    assert _concise(repo, "docs/ent.md") == [
        'docs/ent.md:9:68: KS022 link "c&gone.md": docs/c&gone.md does not exist (dead-link)'
    ]
    git(repo, "mv", "docs/c&d.md", "docs/x&amp;y.md")
    commit_all(repo, "rename")
    run(repo, "--fix", "docs/ent.md")
    text = (repo / "docs/ent.md").read_text(encoding="utf-8")
    # the new name is written so that it reads back: its `&amp;` escaped
    assert text.endswith(
        '\n[a](x\\&amp;y.md) [b](x\\&amp;y.md) <a href="x&amp;amp;y.md">html</a> '
        "[g](c&amp;gone.md)\n"
    )
    assert _concise(repo, "docs/ent.md") == [
        'docs/ent.md:9:73: KS022 link "c&gone.md": docs/c&gone.md does not exist (dead-link)'
    ]


_FORM = st.sampled_from(
    [
        "[",
        "[r",
        "](",
        "](old.md",
        "](old.md (t))",
        "](old.md (t",
        '](old.md "t',
        "](img/none.png 't'",
        "](c&amp;d.md)",
        "](old.md&#35;part)",
        "\\(",
        "(",
        ")",
        '"',
        "'",
        '")',
        "')",
        "]:",
        "]: old.md",
        "]: old.md junk",
        "\n",
        "\n  ",
        "\n\n",
        "\n> ",
        "\n# ",
        "\n- x",
        "x",
        " ",
        "`",
        "\\",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FORM, max_size=30))
@example(
    ["[r", "](old.md", "\n", '"', "x", "\n", "[r", "]: old.md", '")']
)  # no `]:` line in a title
@example(["[r", "]:", "\n  ", "[r", "]:", "\n", "old.md"])  # a destination line opening with `[`
@example(["[r", "]:", "\n  ", "](old.md (t))"])
def test_one_pass_is_the_two_pass_scan_over_forms_spanning_lines(forms: list[str]) -> None:
    _one_pass_is_two_pass("# Tricky\n\n" + "".join(forms))
