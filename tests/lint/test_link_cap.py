"""A page with more links or code paths than the path rules check says so once (KS026), at
the first one not checked: a dead link past the cap passed without a word before."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.docscan import scan_document
from kenso_git.lint.runner import lint_documents
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.text.mdlinks import MAX_LINK_SCANS
from kenso_git.text.mdlinks import MAX_REFS
from kenso_git.text.parse import Document
from kenso_git.text.parse import parse_document
from tests.lint.helpers import write_tree
from tests.lint.test_cli import run

HEAD = "---\ntitle: Generated Index\ntags: [a, b, c]\n---\n# Generated Index\n\n"
HEAD_LINES = HEAD.count("\n")
PATH_RULES = frozenset({"KS022", "KS023", "KS024", "KS025", "KS026"})


def _links_page(count: int, last: str = "gone.md") -> str:
    """`count - 1` links to an existing page, one per line, then a link to `last`."""
    lines = [f"- [entry {i}](ok.md)" for i in range(count - 1)]
    return HEAD + "\n".join([*lines, f"- [last]({last})"]) + "\n"


def _lint(page: str, *, slim: bool = False) -> list[tuple[str, int, int]]:
    docs = [parse_document("docs/big.md", page), parse_document("docs/ok.md", "# Ok\n")]
    scans = {"docs/big.md": scan_document(docs[0], with_anchors=True, placed=True)} if slim else {}
    tree = TreeIndex([d.path for d in docs] + ["src/tool.py"])
    facts = build_facts(docs, tree=tree, scans=scans)
    config = LintConfig(select=PATH_RULES)
    report = lint_documents(docs[:1], corpus=facts, config=config)
    return [(v.rule, v.line, v.column) for v in report.violations()]


def test_a_page_of_exactly_the_cap_is_checked_to_its_last_link() -> None:
    assert _lint(_links_page(MAX_REFS)) == [("KS022", HEAD_LINES + MAX_REFS, 10)]


@pytest.mark.parametrize("slim", [False, True], ids=["kept", "slim"])
def test_the_first_link_past_the_cap_is_said_not_checked_once(slim: bool) -> None:
    # before: nothing at all; the dead link at MAX_REFS + 1 passed silently
    found = _lint(_links_page(MAX_REFS + 30), slim=slim)
    assert found == [("KS026", HEAD_LINES + MAX_REFS + 1, 16)]


def test_reference_definitions_count_toward_the_cap() -> None:
    page = _links_page(MAX_REFS - 1, last="ok.md") + "\n[one]: ok.md\n[two]: gone.md\n"
    assert _lint(page) == [("KS026", HEAD_LINES + MAX_REFS + 2, 8)]


def test_code_paths_past_the_cap_are_said_not_checked() -> None:
    lines = [f"- `src/tool.py` entry {i}" for i in range(MAX_REFS)]
    page = HEAD + "\n".join([*lines, "- `src/tool.pyy` is gone"]) + "\n"
    assert _lint(page) == [("KS026", HEAD_LINES + MAX_REFS + 1, 4)]


@pytest.mark.parametrize("slim", [False, True], ids=["kept", "slim"])
@pytest.mark.parametrize("span", ["`](x)`", "`a](x.md)`", "``[a](x.md)``"])
def test_code_spans_do_not_count_toward_the_caps(span: str, slim: bool) -> None:
    # before: KS026 "more links or code paths than lint checks (5,000 of each)" at the
    # dead link, which was not checked; the same text in a fence was
    spans = "\n".join(span for _ in range(MAX_LINK_SCANS + 5000))
    page = HEAD + spans + "\n[gone](gone.md)\n"
    assert _lint(page, slim=slim) == [("KS022", HEAD_LINES + MAX_LINK_SCANS + 5001, 8)]


def test_brackets_read_past_the_scan_cap_are_said_not_checked() -> None:
    # `](` outside code with no `[` to open a link is looked at and passed over; past
    # MAX_LINK_SCANS none is, and the finding names that cap
    reads = "\n".join("x](y)" for _ in range(MAX_LINK_SCANS))
    page = HEAD + reads + "\n[gone](gone.md)\n"
    docs = [parse_document("docs/big.md", page), parse_document("docs/ok.md", "# Ok\n")]
    facts = build_facts(docs, tree=TreeIndex([d.path for d in docs]))
    report = lint_documents(docs[:1], corpus=facts, config=LintConfig(select=PATH_RULES))
    (only,) = report.violations()
    assert (only.rule, only.line, only.column) == ("KS026", HEAD_LINES + MAX_LINK_SCANS + 1, 8)
    assert f"{MAX_LINK_SCANS:,} `](`" in only.message


def test_code_spans_past_the_scan_cap_with_no_link_after_leave_nothing_unchecked() -> None:
    spans = "\n".join("`](x)`" for _ in range(MAX_LINK_SCANS + 10))
    assert _lint(HEAD + spans + "\n<!-- [gone](gone.md) --> \\](gone.md)\n") == []


def test_the_finding_names_the_cap_and_what_to_do() -> None:
    docs: list[Document] = [parse_document("docs/big.md", _links_page(MAX_REFS + 1))]
    facts = build_facts(docs, tree=TreeIndex(["docs/big.md", "docs/ok.md"]))
    report = lint_documents(docs, corpus=facts, config=LintConfig(select=PATH_RULES))
    (only,) = report.violations()
    assert only.severity.value == "warning"
    assert f"{MAX_REFS:,}" in only.message
    assert "split the page" in only.message and "generated" in only.message


def test_lint_cli_warns_of_the_unchecked_links_and_passes(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"docs/big.md": _links_page(MAX_REFS + 1), "docs/ok.md": "# Ok\n\nThe target page.\n"},
    )
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = run(tmp_path, "--json", "docs/big.md")
    assert result.returncode == 0, result.stdout + result.stderr
    issues = [i for f in json.loads(result.stdout)["violations"] for i in f["issues"]]
    capped = [i for i in issues if i["rule"] == "KS026"]
    assert len(capped) == 1
    assert (capped[0]["line"], capped[0]["severity"]) == (HEAD_LINES + MAX_REFS + 1, "warning")
    assert not [i for i in issues if i["rule"] == "KS022"]
