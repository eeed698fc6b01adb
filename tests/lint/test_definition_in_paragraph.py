"""Lint reads a reference definition only where CommonMark does (tester t49e #2): since
9631e31 `[label]:` then a line inside a paragraph, or before a thematic break or an HTML
block, was a definition of that line, a KS022 *error* that failed the commit gate on a
page with no link in it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run
from tests.lint.test_targets import _one_pass_is_two_pass

PAGE = (
    "# Index\n\n"
    "The tool prints its usage, with these flags\n[options]:\n--verbose\n\n"
    "Release notes follow\n[Status]:\nbeta\n\n"
    "Same-line text\n[inline]: nowhere.md\n\n"
    "[Summary]:\n***\n\n"
    "[Output]:\n<div>\nHello\n</div>\n"
)


def test_label_lines_that_commonmark_reads_as_text_give_no_finding(repo: Path) -> None:
    write(repo, {"docs/index.md": PAGE})
    commit_all(repo, "page")
    shown = run(repo, "--format", "concise", "--select", "KS022", "docs/index.md")
    # before: KS022 reference definition "--verbose", "beta", "***" and "div" (exit 1)
    assert (shown.returncode, shown.stdout) == (0, "")


def test_a_dead_definition_where_a_paragraph_starts_is_still_reported(repo: Path) -> None:
    page = PAGE + "\nText\n\n[gone]:\n  gone.md\n[also]: also-gone.md\n"
    write(repo, {"docs/index.md": page})
    commit_all(repo, "page")
    shown = run(repo, "--format", "concise", "--select", "KS022", "docs/index.md")
    assert shown.returncode == 1
    assert shown.stdout.splitlines() == [
        'docs/index.md:25:3: KS022 reference definition "gone.md": docs/gone.md does not '
        "exist (dead-link)",
        'docs/index.md:26:9: KS022 reference definition "also-gone.md": docs/also-gone.md '
        "does not exist (dead-link)",
    ]


_LINE = st.sampled_from(
    [
        "[r]:",
        "[r]: old.md",
        "[r]: img/none.png 't'",
        "[r]: old.md (",
        "  old.md",
        "missing.md",
        "Some text",
        "Some [t](old.md) text",
        "***",
        "---",
        "===",
        "<div>",
        "<!-- c -->",
        "# Heading",
        "> quote",
        "- item",
        "    indented",
        "```",
        "",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=14))
@example(["Some text", "[r]:", "missing.md"])
@example(["[r]:", "***"])
@example(["[r]: old.md", "[r]:", "  old.md", "[r]: old.md"])
def test_one_pass_is_the_two_pass_scan_over_definitions_and_paragraphs(
    lines: list[str],
) -> None:
    _one_pass_is_two_pass("# Tricky\n\n" + "\n".join(lines) + "\n")
