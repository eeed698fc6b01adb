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


@pytest.mark.parametrize(
    "href",
    [
        "https://docs.example.com/docs/<DOCS_VERSION>/guide/binding/",  # a site's own address
        "https://docs.example.com/docs/latest/guide/binding",
        "https://github.com/example/repo/blob/main/docs/guide/binding.md",  # the repository's
    ],
)
def test_a_full_address_of_the_docs_own_page_names_that_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, href: str
) -> None:
    # Grafana's docs (k6, Loki) list a section's pages in a table whose links are full
    # addresses with a version placeholder; the row's text was never handed to the page
    kb = topics_kb(tmp_path, _hub(LINE, href))
    monkeypatch.setenv(ENV, "+addresses")
    assert ranked_paths(kb, QUESTION)[:2] == ["docs/guide/binding.md", "docs/guide/index.md"]
    monkeypatch.setenv(ENV, "-addresses")  # on by default since #31's eighteenth round
    assert "addresses" in DEFAULT_ON
    assert ranked_paths(kb, QUESTION)[0] == "docs/guide/index.md"


def test_a_table_row_with_a_full_address_hands_over_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = "".join(
        f"| [thing{i}()](https://docs.example.com/docs/<V>/guide/thing{i}) | Resets thing {i}. |\n"
        for i in range(30)
    )
    row = f"| [binding()](https://docs.example.com/docs/<V>/guide/binding) | {LINE} |\n"
    files = _hub(LINE)
    files["guide/index.md"] = f"# Guide\n\n| Method | Description |\n| --- | --- |\n{rows}{row}"
    kb = topics_kb(tmp_path, files)
    monkeypatch.setenv(ENV, "+addresses")
    assert ranked_paths(kb, QUESTION)[0] == "docs/guide/binding.md"


@pytest.mark.parametrize(
    ("source", "href", "expected"),
    [
        (
            "docs/k6/selection/_index.md",
            "https://grafana.com/docs/k6/<K6_VERSION>/selection/selection-last",
            "docs/k6/selection/selection-last.md",
        ),
        ("src/query/_index.md", "/docs/loki/<LOKI_VERSION>/query/logcli/", "src/query/logcli.md"),
        ("a/hub.md", "https://github.com/o/r/blob/main/docs/a/install.md", "docs/a/install.md"),
    ],
)
def test_candidates_of_a_full_address_or_a_versioned_site_path(
    source: str, href: str, expected: str
) -> None:
    assert expected in candidates(source, href, addresses=True)
    assert expected not in candidates(source, href)


def test_a_full_address_tries_its_longest_run_of_names_first() -> None:
    found = candidates("a/hub.md", "https://example.com/docs/guide/install/", addresses=True)
    assert found.index("docs/guide/install.md") < found.index("guide/install.md")
    assert "install.md" not in found  # one name is any site's page
