from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.graph.related import get_related
from tests.search.helpers import IndexBuilder


@pytest.fixture
def graph(tmp_path: Path) -> IndexBuilder:
    b = IndexBuilder(tmp_path / "i.db")
    for name in "abcdef":
        b.doc(f"{name}.md", f"document {name}")
    b.link("a.md", "b.md").link("a.md", "b.md", "depends_on")
    b.link("c.md", "a.md", "see_also")
    b.link("b.md", "d.md").link("c.md", "d.md")  # d reachable from b and c at depth 2
    b.link("d.md", "e.md").link("e.md", "f.md")
    b.link("d.md", "a.md")  # a second route back to the start
    return b


def test_depth_one_lists_direct_neighbours_with_direction(graph: IndexBuilder) -> None:
    assert get_related(graph.reader(), "a.md") == [
        {
            "related_path": "b.md",
            "relation_type": "depends_on",
            "direction": "outgoing",
            "depth": 1,
        },
        {"related_path": "b.md", "relation_type": "related", "direction": "outgoing", "depth": 1},
        {"related_path": "c.md", "relation_type": "see_also", "direction": "incoming", "depth": 1},
        {"related_path": "d.md", "relation_type": "related", "direction": "incoming", "depth": 1},
    ]


def test_breadth_first_reports_each_document_once_at_its_shortest_depth(
    graph: IndexBuilder,
) -> None:
    rows = get_related(graph.reader(), "a.md", depth=3)
    assert [(r["related_path"], r["depth"]) for r in rows] == [
        ("b.md", 1),
        ("b.md", 1),
        ("c.md", 1),
        ("d.md", 1),
        ("e.md", 2),
        ("f.md", 3),
    ]
    assert rows[4] == {
        "related_path": "e.md",
        "relation_type": "related",
        "direction": "outgoing",
        "depth": 2,
        "via": "d.md",
    }
    assert rows[5]["via"] == "e.md"


def test_via_and_direction_are_relative_to_the_node_reached_from(tmp_path: Path) -> None:
    b = IndexBuilder(tmp_path / "i.db")
    b.link("x.md", "hub.md").link("y.md", "hub.md").link("z.md", "y.md")
    rows = get_related(b.reader(), "x.md", depth=3)
    assert rows == [
        {"related_path": "hub.md", "relation_type": "related", "direction": "outgoing", "depth": 1},
        {
            "related_path": "y.md",
            "relation_type": "related",
            "direction": "incoming",
            "depth": 2,
            "via": "hub.md",
        },
        {
            "related_path": "z.md",
            "relation_type": "related",
            "direction": "incoming",
            "depth": 3,
            "via": "y.md",
        },
    ]


def test_depth_is_clamped_to_one_through_three(graph: IndexBuilder) -> None:
    conn = graph.reader()
    assert get_related(conn, "a.md", depth=0) == get_related(conn, "a.md", depth=1)
    assert get_related(conn, "a.md", depth=-4) == get_related(conn, "a.md", depth=1)
    assert get_related(conn, "a.md", depth=9) == get_related(conn, "a.md", depth=3)


def test_relation_type_filter_applies_at_every_hop(graph: IndexBuilder) -> None:
    rows = get_related(graph.reader(), "a.md", depth=3, relation_type="see_also")
    assert rows == [
        {"related_path": "c.md", "relation_type": "see_also", "direction": "incoming", "depth": 1}
    ]


def test_path_filter_hides_documents_and_stops_traversal(graph: IndexBuilder) -> None:
    rows = get_related(graph.reader(), "a.md", depth=3, path_filter=lambda p: p != "d.md")
    assert [r["related_path"] for r in rows] == ["b.md", "b.md", "c.md"]
    assert get_related(graph.reader(), "a.md", path_filter=lambda p: p != "a.md") == []


def test_unknown_path_has_no_relations(graph: IndexBuilder) -> None:
    assert get_related(graph.reader(), "missing.md", depth=2) == []


def test_output_is_deterministic(graph: IndexBuilder) -> None:
    conn = graph.reader()
    first = get_related(conn, "b.md", depth=3)
    assert all(get_related(conn, "b.md", depth=3) == first for _ in range(5))
