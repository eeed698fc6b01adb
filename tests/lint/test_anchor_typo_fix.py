"""`lint --fix` corrects a dead anchor's typo when the page makes exactly one anchor close to
it (the one KS023 suggests), and leaves it when two are close."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
TARGET = PAGE.format(t="Target") + "\n## Setup steps\n\nMore.\n\n## Install guide\n\nMore.\n"


def _fixed(repo: Path, body: str, target: str = TARGET) -> tuple[list[str], str]:
    write(repo, {"docs/target.md": target, "docs/source.md": PAGE.format(t="Source") + body})
    commit_all(repo, "pages")
    found = run(repo, "--format", "concise", "--select", "KS023", "docs/source.md")
    run(repo, "--fix", "--select", "KS023", "docs/source.md")
    text = (repo / "docs" / "source.md").read_text(encoding="utf-8")
    return found.stdout.splitlines(), text[len(PAGE.format(t="Source")) :]


def test_lint_fix_corrects_an_anchor_typo_with_one_close_match(repo: Path) -> None:
    body = "\nSee [setup](target.md#setup-step) and [here](#sourse) and [x](target.md#zzz).\n"
    found, fixed = _fixed(repo, body)
    assert found[0].endswith(
        'KS023 anchor "#setup-step": no heading of docs/target.md makes it; '
        'did you mean "#setup-steps"? (dead-anchor)'
    )
    # before: the suggestion was printed and --fix changed nothing
    assert fixed == (
        "\nSee [setup](target.md#setup-steps) and [here](#source) and [x](target.md#zzz).\n"
    )


def test_lint_fix_leaves_an_anchor_typo_two_anchors_are_close_to(repo: Path) -> None:
    target = TARGET + "\n## Setup stem\n\nMore.\n"
    body = "\nSee [setup](target.md#setup-step).\n"
    found, fixed = _fixed(repo, body, target)
    assert len(found) == 1 and 'did you mean "#setup-steps"?' in found[0], found
    assert fixed == body


def test_the_top_of_a_page_is_a_live_anchor(repo: Path) -> None:
    # HTML: a fragment `top` (any case) that names no element scrolls to the document's top,
    # as GitHub and every browser do; `[Back to top](#top)` was a KS023 error
    body = "\n[Back to top](#top), [up](#TOP), [the target's top](target.md#top), [x](#topp).\n"
    found, _ = _fixed(repo, body)
    assert [line.split("KS023 ")[1].split(":")[0] for line in found] == ['anchor "#topp"']
