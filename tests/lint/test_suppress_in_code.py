"""An inline switch is an HTML comment as Markdown reads one (`lint.suppress`): a page that
shows `` `<!-- kenso-disable-file KS022 -->` `` in prose, as docs/rules.md does, or in a
code block, switched KS022 off for itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.lint.suppress import parse_suppressions
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.helpers import run_cli

HEAD = "# Switches page\n\nThis page says how to switch a rule off for a page.\n\n"


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "Use `<!-- kenso-disable-file KS022 -->` to switch it off.\n",
        HEAD + "Use ``<!-- kenso-disable-file -->`` to switch every rule off.\n",
        HEAD + "A span `over\ntwo <!-- kenso-disable-file KS022 --> lines` of text.\n",
        HEAD + "```md\n<!-- kenso-disable-file KS022 -->\n```\n",
        HEAD + "    <!-- kenso-disable-file KS022 -->\n",
        HEAD + "\\<!-- kenso-disable-file KS022 -->\n",
    ],
)
def test_a_switch_written_as_code_switches_nothing(text: str) -> None:
    found = parse_suppressions(text)
    assert not found.file
    assert not found.lines


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (HEAD + "<!-- kenso-disable-file KS022 -->\n", 0),
        (HEAD + "Text `code` <!-- kenso-disable-next-line KS022 --> more.\n[x](gone.md)\n", 6),
        (HEAD + "- item\n  <!-- kenso-disable-next-line KS022 -->\n  [x](gone.md)\n", 7),
        ("---\ntitle: T\n---\n" + HEAD + "`x` <!-- kenso-disable-next-line KS022 -->\n", 9),
    ],
)
def test_a_switch_written_as_a_comment_switches(text: str, line: int) -> None:
    found = parse_suppressions(text)
    assert found.covers("KS022", line)
    assert not found.covers("KS007", line)


def test_lint_reports_a_dead_link_on_a_page_that_shows_a_switch_in_prose(repo: Path) -> None:
    page = HEAD + (
        "Use `<!-- kenso-disable-file KS022 -->` to switch the rule off.\n\n"
        "See [the missing page](missing.md).\n"
    )
    write(repo, {"docs/switches.md": page})
    commit_all(repo, "page")
    shown = run_cli(repo, "lint", "--format", "concise", "--select", "KS022", "docs")
    # before: exit 0 and nothing, the prose switched KS022 off for the page
    assert shown.returncode == 1
    assert shown.stdout.splitlines() == [
        'docs/switches.md:7:24: KS022 link "missing.md": docs/missing.md does not exist (dead-link)'
    ]
