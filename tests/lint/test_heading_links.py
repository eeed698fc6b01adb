"""KS023 and `lint --fix` on links to headings whose anchors were wrong or missing.

* Underscores that are not emphasis (`\\_\\_init\\_\\_`, `_private`, `MY_PREFIX_`) were
  dropped from slugs: the correct links were errors, and `--fix` rewrote them to dead ones.
* ATX headings indented 1-3 spaces, with a tab after the hashes, in a block quote or a list
  item made no anchor: links to them were errors that failed the commit gate.
"""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.test_cli import run

PROSE = "Text text text text text text text text text text text.\n\n"

UNDERSCORES = (
    FRONT.format(t="Underscore slug test page")
    + "Preamble text that is long enough for the preamble rule to be happy here.\n\n"
    + "## The \\_\\_init\\_\\_ method\n\n"
    + PROSE
    + "## The _private helper\n\n"
    + PROSE
    + "## Setting MY_PREFIX_ variable\n\n"
    + PROSE
    + "## Links to test\n\n"
    + "[1](#the-__init__-method) [2](#the-_private-helper) [3](#setting-my_prefix_-variable)\n"
)

NESTED = (
    FRONT.format(t="Indent heading slug page")
    + "Preamble text that is long enough for the preamble rule to be happy here.\n\n"
    + " ## One space heading\n\n"
    + PROSE
    + "   ## Three space heading\n\n"
    + PROSE
    + "##\tTab heading\n\n"
    + PROSE
    + "> ## Quoted heading\n\n"
    + "- ## Item heading\n\n"
    + "## Links\n\n"
    + "[1](#one-space-heading) [2](#three-space-heading) [3](#tab-heading) "
    + "[4](#quoted-heading) [5](#item-heading)\n"
)


def _checked(repo: Path, page: str) -> tuple[str, str]:
    """KS023's findings on `docs/p.md`, and the page after `lint --fix`."""
    write(repo, {"docs/p.md": page})
    commit_all(repo, "page")
    found = run(repo, "--format", "concise", "--select", "KS023", "docs/p.md")
    assert found.returncode in (0, 1), found.stderr
    run(repo, "--fix", "--select", "KS023", "docs/p.md")
    return found.stdout, (repo / "docs" / "p.md").read_text(encoding="utf-8")


def test_links_to_headings_with_underscores_pass_and_fix_leaves_them(repo: Path) -> None:
    findings, fixed = _checked(repo, UNDERSCORES)
    assert "KS023" not in findings, findings
    assert fixed == UNDERSCORES  # before: rewritten to #the-init-method and the like


def test_links_to_indented_tabbed_quoted_and_listed_headings_pass(repo: Path) -> None:
    findings, fixed = _checked(repo, NESTED)
    assert "KS023" not in findings, findings
    assert fixed == NESTED


def test_a_link_to_a_heading_in_indented_code_is_still_a_dead_anchor(repo: Path) -> None:
    page = NESTED + "\n    ## In code\n\n[6](#in-code)\n"
    findings, _fixed = _checked(repo, page)
    assert findings.count("KS023") == 1 and '"#in-code"' in findings, findings
