"""KS023's typo suggestion costs a bounded number of difflib comparisons per dead anchor and
per document, however many headings the target page makes (tester t48b, finding 2: a page
of 750 headings and 750 misspelled links took 29 s to lint, each link compared with every
heading twice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import lint_compared
from tests.lint.test_cli import run

FRONT = "---\ntitle: Anchor stress page\ntags: [a, b, c]\n---\n# Anchor stress page\n\nIntro.\n\n"


def _page(headings: int, links: int) -> str:
    body = "".join(f"[s](#section-number-{i}x) " for i in range(links))
    heads = "".join(f"## Section number {i}\n\nBody of section {i}.\n\n" for i in range(headings))
    return FRONT + body + "\n\n" + heads


def _compared(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """The difflib comparisons (candidates set against a fragment) a KS023 lint makes."""
    return lint_compared(repo, monkeypatch, "KS023")


@pytest.mark.parametrize("size", [300, 600])
def test_dead_anchor_suggestions_cost_linear_work_in_the_links(repo, monkeypatch, size):
    write(repo, {"docs/doc.md": _page(size, size)})
    commit_all(repo, "page")
    calls, messages = _compared(repo, monkeypatch)
    # every misspelled link is still reported
    assert len([m for m in messages if "no heading of this document" in m]) == size
    # before: each link was compared with every heading sharing its first 3 characters,
    # then with all of them again (2 x size x size: 180,000 for 300); now a link costs a
    # bounded number of comparisons (not a share of a per-document total, which left an
    # ordinary page's later links without a suggestion: see below)
    assert calls <= 40 * size, calls


def test_a_page_repeating_a_dead_anchor_pays_for_it_once(repo, monkeypatch):
    body = "[s](#section-number-7x) " * 600
    heads = "".join(f"## Section number {i}\n\nBody of section {i}.\n\n" for i in range(600))
    write(repo, {"docs/doc.md": FRONT + body + "\n\n" + heads})
    commit_all(repo, "page")
    calls, messages = _compared(repo, monkeypatch)
    assert len(messages) == 600
    assert calls <= 40, calls


WORDS = ["alpha", "bravo", "delta", "gamma", "kilo", "lima", "oscar", "sierra", "tango"]


def _toc_page() -> tuple[str, list[str]]:
    """An 80-heading page whose table of contents another slugger wrote (a doubled hyphen):
    every link is dead, and each has one heading it plainly means (tester t48d, finding 3)."""
    heads = [
        f"Configure {WORDS[i % 9]}{WORDS[i // 9]} and {WORDS[(i * 5) % 9]} options {i}"
        for i in range(80)
    ]
    slugs = [h.lower().replace(" ", "-") for h in heads]
    pairs = zip(heads, slugs, strict=True)
    toc = "".join(f"- [{h}](#{a.replace('-and-', '--and-')})\n" for h, a in pairs)
    body = "".join(f"## {h}\n\nText for this section, in enough words.\n\n" for h in heads)
    return FRONT + toc + "\n" + body, slugs


def test_every_dead_link_of_an_ordinary_page_gets_its_suggestion(repo, monkeypatch):
    page, slugs = _toc_page()
    write(repo, {"docs/doc.md": page})
    commit_all(repo, "page")
    _, messages = _compared(repo, monkeypatch)
    # before: a budget per document ran out after about 30 of them; the rest said nothing
    assert sorted(m.split("did you mean ")[-1] for m in messages) == sorted(
        f'"#{a}"?' for a in slugs
    )


def _big_page(links: str, extra: list[str]) -> str:
    heads = [f"Topic {i} of the widget reference" for i in range(250)] + extra
    body = "".join(f"## {h}\n\nText.\n\n" for h in heads)
    return FRONT + links + "\n\n" + body


def test_lint_fix_takes_a_one_edit_typo_on_a_large_page(repo):
    page = _big_page("Read [it](#denshne-poshufir-reference).", ["Denshune poshufir reference"])
    write(repo, {"docs/doc.md": page})
    commit_all(repo, "page")
    run(repo, "--fix", "--select", "KS023", "docs/doc.md")
    # before: suggested, but a page of more than 200 anchors was never fixed
    fixed = page.replace("#denshne-", "#denshune-")
    assert (repo / "docs" / "doc.md").read_text(encoding="utf-8") == fixed


def test_lint_fix_leaves_a_typo_one_edit_from_two_anchors_of_a_large_page(repo):
    # "lap-…" is one edit from the fragment too, though not beside it in sort order
    extra = ["Map reference guides", "Lap reference guide"]
    page = _big_page("Read [it](#map-reference-guide).", extra)
    write(repo, {"docs/doc.md": page})
    commit_all(repo, "page")
    run(repo, "--fix", "--select", "KS023", "docs/doc.md")
    assert (repo / "docs" / "doc.md").read_text(encoding="utf-8") == page


def test_a_large_page_still_suggests_the_anchor_a_typo_misspells(repo, monkeypatch):
    write(repo, {"docs/doc.md": _page(400, 3)})
    commit_all(repo, "page")
    _, messages = _compared(repo, monkeypatch)
    assert sorted(m.split("did you mean ")[1] for m in messages) == [
        '"#section-number-0"?',
        '"#section-number-1"?',
        '"#section-number-2"?',
    ]


def test_lint_fix_leaves_a_typo_on_a_page_too_large_to_prove_one_reading(repo):
    write(repo, {"docs/doc.md": _page(400, 3)})
    commit_all(repo, "page")
    run(repo, "--fix", "--select", "KS023", "docs/doc.md")
    assert (repo / "docs" / "doc.md").read_text(encoding="utf-8") == _page(400, 3)
