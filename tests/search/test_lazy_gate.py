"""The scope gate judges a search's matches in rank order, only as many as the page needs
(`store/chunkreads.py` `ranked_matches`), and keeps exactly the rows an SQL filter keeps:
the same chunks, in the same order, ties (identical documents) included."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked.cascade import FETCH_FACTOR
from kenso_git.search.ranked.rank import FILL_DOCUMENTS
from kenso_git.store import chunkreads
from tests.helpers import docs_kb

COPIES = 120  # identical documents: every one ties with the others on BM25
FILLER = "A page of its own, with enough words in it to be indexed as every page is."


def _files() -> dict[str, str]:
    same = "# Note\n\nThe marker word, said once in a short page.\n"
    files = {f"f{i % 12}/same{i}.md": same for i in range(COPIES)}
    for i in range(40):  # and pages that rank apart: the word said more or less often
        said = "marker text " * (i % 7 + 1)
        files[f"g{i % 5}/varied{i}.md"] = f"# Page {i}\n\n{FILLER}\n\n{said}\n"
    return files


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return docs_kb(tmp_path_factory.mktemp("lazy"), _files())


def _hashed(share: int) -> Callable[[str], bool]:
    """A gate keeping about `share`/256 of the paths, as a scope the index does not match."""
    return lambda p: hashlib.md5(p.encode()).digest()[0] < share


GATES: dict[str, Callable[[str], bool]] = {
    "every": lambda p: True,
    "half": _hashed(128),
    "few": _hashed(12),
    "one folder": lambda p: p.startswith("docs/f7/"),
    "none": lambda p: False,
}


def _filtered_in_sql(
    conn: sqlite3.Connection, expression: str, gate: Callable[[str], bool], fetch: int
) -> list[tuple[object, ...]]:
    """What the gate kept when it ran inside the SQL: the rows it passes, ranked, cut."""
    chunkreads.install_path_filter(conn, gate)
    where, params = chunkreads.chunk_filter(None, True)
    return chunkreads.ranked_matches(conn, expression, where, params, fetch)


@pytest.mark.parametrize("gate", sorted(GATES))
@pytest.mark.parametrize("fetch", [1, 3, 6, 30, 100, 400])
@pytest.mark.parametrize("expression", ["marker", "marker OR note", "text"])
def test_rows_the_gate_keeps_in_rank_order_are_those_an_sql_filter_keeps(
    kb: KnowledgeBase, gate: str, fetch: int, expression: str
) -> None:
    def both(conn: sqlite3.Connection) -> tuple[list[tuple[object, ...]], ...]:
        lazy = chunkreads.ranked_matches(conn, expression, "", [], fetch, GATES[gate])
        eager = _filtered_in_sql(conn, expression, GATES[gate], fetch)
        return [tuple(r) for r in lazy], [tuple(r) for r in eager]

    lazy, eager = kb.read(both)
    assert lazy == eager


def test_the_copies_tie_so_their_order_is_the_tie_break(kb: KnowledgeBase) -> None:
    rows = kb.read(lambda conn: chunkreads.ranked_matches(conn, "marker", "", [], -1))
    ranks = [row[6] for row in rows]
    assert len(rows) == COPIES + 40  # every page is indexed, and holds the word
    assert len(set(ranks)) <= 1 + 40


def test_a_category_filter_still_applies_before_the_gate(kb: KnowledgeBase) -> None:
    def rows(conn: sqlite3.Connection) -> list[object]:
        where, params = chunkreads.chunk_filter("nothing-has-this", False)
        return list(chunkreads.ranked_matches(conn, "marker", where, params, 5, GATES["every"]))

    assert kb.read(rows) == []


def _counting() -> tuple[Callable[[str], bool], set[str]]:
    asked: set[str] = set()

    def gate(path: str) -> bool:
        asked.add(path)
        return True

    return gate, asked


def test_search_docs_asks_the_gate_about_a_page_not_every_match(tmp_path: Path) -> None:
    kb = docs_kb(tmp_path, _files())
    gate, asked = _counting()
    hits = kb.search_docs("marker", limit=3, path_filter=gate)
    assert len(hits) == 3
    assert set(hits_paths(hits)) <= asked
    # the cascade fetches 6 chunks a result for at least the agent's page (10 results, so
    # a search for 3 ranks as the first 3 of one for 10: 60 chunks), and the signals may
    # look at a few more: never every match
    assert len(asked) <= FILL_DOCUMENTS * FETCH_FACTOR + 10 < COPIES


def hits_paths(hits: object) -> list[str]:
    assert isinstance(hits, list)
    return [h["file_path"] for h in hits]


def test_an_agent_search_page_asks_the_gate_about_its_ranking_not_every_doc(
    tmp_path: Path,
) -> None:
    from kenso_git.search.lang.agent import SearchRequest

    others = {f"o{i % 9}/other{i}.md": f"# Other {i}\n\n{FILLER}\n" for i in range(90)}
    kb = docs_kb(tmp_path, _files() | others)
    gate, asked = _counting()
    page = kb.agent_search(SearchRequest("marker", page_size=3), path_filter=gate)
    assert len(page["results"]) == 3 and page["has_more"]
    assert {h["path"] for h in page["results"]} <= asked
    # a doc the query does not match is never judged, nor every match: the first ranking
    # (10 documents, 6 chunks each) looks at twice its 60 chunks at most
    assert not any("/other" in path for path in asked)
    assert len(asked) <= 120 < COPIES + 40
