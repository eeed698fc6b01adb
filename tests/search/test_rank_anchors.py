"""Signal `anchors` (#31): a hub's link line that says what the question says is the linked
page's evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.anchors import candidates
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from tests.helpers import ranked_without
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

QUESTION = "how controls bind to data sources and keep them in sync"
LINE = "Describes how controls bind to data sources and keep them in sync."  # the hub's entry


def _hub(line: str, href: str = "binding.md") -> dict[str, str]:
    """A hub listing thirty pages, one of them with `line` (its link: `href`); the page it
    describes says the same in other words."""
    items = "".join(
        f"- [Thing {i}](thing{i}.md): explains how thing {i} is configured and reset.\n"
        for i in range(30)
    )
    files = {
        "guide/index.md": f"# Guide\n\n## Pages\n\n{items}- [Data binding]({href}): {line}\n",
        "guide/binding.md": "# Data binding\n\nA control shows a value of an object; when "
        "either side changes, the other follows. Sources may be lists, objects or XML.\n",
    }
    for i in range(30):
        files[f"guide/thing{i}.md"] = f"# Thing {i}\n\nA page.\n"
    return files


def test_a_list_line_describing_a_page_is_that_pages_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _hub(LINE))
    monkeypatch.setenv(ENV, "-anchors")
    assert ranked_paths(kb, QUESTION)[0] == "docs/guide/index.md"
    monkeypatch.delenv(ENV)
    assert "anchors" in DEFAULT_ON  # it earned on the tuning and the held-out half (#31)
    assert ranked_paths(kb, QUESTION)[:2] == ["docs/guide/binding.md", "docs/guide/index.md"]


def test_a_site_url_link_names_the_page_it_is_published_as(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"content/{p}": text for p, text in _hub(LINE, "/guide/binding/").items()}
    kb = topics_kb(tmp_path, files)
    monkeypatch.setenv(ENV, "+anchors")
    assert ranked_paths(kb, QUESTION)[0] == "docs/content/guide/binding.md"


def test_a_page_the_scope_hides_is_not_handed_the_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _hub(LINE))
    monkeypatch.setenv(ENV, "+anchors")
    shown = ranked_without(kb, QUESTION, "docs/guide/binding.md")
    assert shown[0] == "docs/guide/index.md"
    assert "docs/guide/binding.md" not in shown


def test_a_line_covering_little_of_the_question_hands_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the hub matches the question through its title and other lines, not through the line
    kb = topics_kb(tmp_path, _hub("Covers sync."))
    monkeypatch.setenv(ENV, "+anchors")
    paths = ranked_paths(kb, "guide pages data binding sync")
    monkeypatch.setenv(ENV, "-anchors")
    assert paths == ranked_paths(kb, "guide pages data binding sync")


def test_a_line_linking_two_pages_hands_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = "Describes how controls bind to data sources and keep them in sync ([more](thing1.md))."
    kb = topics_kb(tmp_path, _hub(line))
    monkeypatch.setenv(ENV, "+anchors")
    assert ranked_paths(kb, QUESTION)[0] == "docs/guide/index.md"


@pytest.mark.parametrize(
    ("source", "href", "first"),
    [
        ("docs/a/hub.md", "page.md", "docs/a/page.md"),
        ("docs/a/hub.md", "../b/page.md#part", "docs/b/page.md"),
        ("docs/a/hub.md", "/docs/b/page.md", "docs/b/page.md"),
        ("site/content/a/_index.md", "/a/b/", "site/content/a/a/b.md"),
    ],
)
def test_candidates_of_a_link(source: str, href: str, first: str) -> None:
    assert candidates(source, href)[0] == first


def test_candidates_of_a_site_url_try_every_folder_above_the_page() -> None:
    found = candidates("site/content/a/_index.md", "/a/b/")
    assert "site/content/a/b.md" in found
    assert "site/content/a/b/_index.md" in found
    assert found.index("site/content/a/a/b.md") < found.index("site/content/a/b.md")


@pytest.mark.parametrize("href", ["https://example.com/x.md", "mailto:a@b.c", "#part", "../x/", ""])
def test_links_that_name_no_page_of_the_repository(href: str) -> None:
    assert candidates("docs/a/hub.md", href) == ()
