"""An exhaustive listing (and a ranked query of filters alone) asks the scope gate only about
the matches its filters of the index's metadata and its negations keep: under `Service` the
gate looks each path up on disk, and it was asked about every match (`the in:docs/wpf` judged
all 1,601 matches of the corpus to list 763). The pages are the same as when the gate judged
every match: what the ungated listing holds that the gate lets through, in the same order.
A ranked search asks it last too, about the matches its ranking judges (`data tag:xyz` on
the corpus: 544 lookups for no hit)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang import agent
from kenso_git.search.lang.agent import SearchRequest
from tests.helpers import docs_kb
from tests.helpers import require_corpus

Gate = Callable[[str], bool]


def _files() -> dict[str, str]:
    files = {}
    for i in range(24):
        folder = "a" if i % 2 else "b"
        tags = f"---\ntags: [t{i % 3}]\n---\n" if i % 4 else ""
        extra = " The wpf designer shows it." if i % 5 == 0 else ""
        pad = " More words." * (i * 8)
        files[f"{folder}/note{i:02}.md"] = (
            f"{tags}# Binding note {i}\n\nA data binding connects a control to data.{extra}{pad}\n"
        )
    files["c/other.md"] = "# Other page\n\nNothing of the kind is written on this page.\n"
    return files


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return docs_kb(tmp_path_factory.mktemp("gatelast"), _files())


def _asking() -> tuple[Gate, list[str]]:
    asked: list[str] = []

    def gate(path: str) -> bool:
        asked.append(path)
        return True

    return gate, asked


def _walk(
    kb: KnowledgeBase, query: str, mode: str, gate: Gate | None, size: int = 4, pages: int = 100
) -> tuple[list[str], set]:
    """The paths of the first `pages` pages, and each page's (total, lower bound)."""
    agent.clear_cache()
    paths: list[str] = []
    totals = set()
    cursor = None
    for _ in range(pages):
        request = SearchRequest(query, page_size=size, cursor=cursor, mode=mode)
        page = kb.agent_search(request, path_filter=gate)
        paths += [h["path"] for h in page["results"]]
        totals.add((page["total"], page["total_is_lower_bound"]))
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    return paths, totals


FILTERED = [
    ("binding in:docs/a", "exhaustive"),
    ("binding -wpf", "exhaustive"),
    ('binding -"wpf designer" tag:t1', "exhaustive"),
    ("binding size:<200", "exhaustive"),
    ("binding ext:md in:docs/b -tag:t2", "exhaustive"),
    ("in:docs/b", "exhaustive"),
    ("in:docs/b", "ranked"),
    ("tag:t0 -wpf", "ranked"),
]


@pytest.mark.parametrize(("query", "mode"), FILTERED)
def test_the_gate_is_asked_only_about_what_the_filters_keep(
    kb: KnowledgeBase, query: str, mode: str
) -> None:
    gate, asked = _asking()
    listed, _ = _walk(kb, query, mode, gate)
    assert 0 < len(listed) < 24, query  # the filters keep some of the matches
    # the first page's ranking asked the gate about each listed path once (later pages
    # slice the cached ranking, and a per-call gate is never cached: asked again per page)
    assert sorted(set(asked)) == sorted(listed)


def test_a_regex_filter_reads_only_what_the_gate_let_through(kb: KnowledgeBase) -> None:
    refused = {"docs/a/note01.md", "docs/a/note03.md"}
    asked: list[str] = []

    def gate(path: str) -> bool:
        asked.append(path)
        return path not in refused

    listed, _ = _walk(kb, "binding in:docs/a re:control", "exhaustive", gate)
    assert listed and not refused & set(listed)
    assert {p for p in asked if not p.startswith("docs/a/")} == set()


@pytest.mark.parametrize(
    "query", ["binding in:docs/a", "binding -wpf tag:t1", "binding size:<200", "binding tag:t9"]
)
def test_a_ranked_search_asks_the_gate_only_about_matches_its_filters_keep(
    kb: KnowledgeBase, query: str
) -> None:
    gate, asked = _asking()
    listed, _ = _walk(kb, query, "ranked", gate)
    kept, _ = _walk(kb, query, "exhaustive", None)  # every match the filters keep
    assert set(listed) <= set(asked) <= set(kept)
    assert len(kept) < 24  # the filters keep fewer than `binding` matches


def _hashed(share: int) -> Gate:
    """A gate keeping about `share`/256 of the paths."""
    return lambda p: hashlib.md5(p.encode()).digest()[0] < share


SAME = [
    *FILTERED,
    ("binding", "exhaustive"),
    ("binding re:Binding\\snote\\s1", "exhaustive"),
    ("binding -wpf re:data", "exhaustive"),
    ("nothing-matches-this in:docs/a", "exhaustive"),
    ("in:docs", "ranked"),
    ("size:>300", "ranked"),
]


def _same_as_the_ungated_listing_gated(
    kb: KnowledgeBase, queries: list[tuple[str, str]], gates: list[Gate], size: int = 4
) -> None:
    """Pages 1-3 of each query under each gate: the ungated listing's paths that the gate
    lets through, in its order, and every page's total their count."""
    for query, mode in queries:
        everything, _ = _walk(kb, query, mode, None, size, pages=10_000)
        for gate in gates:
            listed, totals = _walk(kb, query, mode, gate, size, pages=3)
            expected = [p for p in everything if gate(p)]
            assert listed == expected[: 3 * size], (query, mode)
            assert totals == {(len(expected), False)}, (query, mode)


def test_gated_pages_are_the_ungated_listing_less_what_the_gate_refuses(
    kb: KnowledgeBase,
) -> None:
    gates = [_hashed(128), _hashed(40), lambda p: p.startswith("docs/a/"), lambda p: False]
    _same_as_the_ungated_listing_gated(kb, SAME, gates)


CORPUS_QUERIES = [
    ("the in:dotnet-desktop-guide/wpf", "exhaustive"),
    ("window ext:md -xaml", "exhaustive"),
    ("button -wpf", "exhaustive"),
    ("data tag:xyz", "exhaustive"),
    ('control -"data binding" size:<3kb', "exhaustive"),
    ("install re:[Ii]nstall\\w+", "exhaustive"),
    ("in:dotnet-desktop-guide/winforms modified:2000-01-01", "exhaustive"),
    ("in:dotnet-desktop-guide/winforms", "ranked"),
    ("size:<1kb", "ranked"),
]


@pytest.mark.corpus
def test_corpus_gated_listings_are_the_same_and_ask_only_about_what_is_kept(
    tmp_path: Path,
) -> None:
    corpus = require_corpus()
    kb = KnowledgeBase.open(corpus, db=str(tmp_path / "corpus.db"))
    kb.ingest([corpus])
    _same_as_the_ungated_listing_gated(kb, CORPUS_QUERIES, [_hashed(128), _hashed(20)], 50)
    gate, asked = _asking()
    listed, _ = _walk(kb, "the in:dotnet-desktop-guide/wpf", "exhaustive", gate, 50, pages=1)
    assert len(listed) == 50
    total = kb.agent_search(SearchRequest("the in:dotnet-desktop-guide/wpf", mode="exhaustive"))
    assert len(set(asked)) == total["total"] > 700  # of 1,601 matches of `the`
