"""YAML alias bombs in frontmatter are weighed before anything expands them (issue #14)."""

from __future__ import annotations

import tracemalloc

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.text.parse import parse_document
from tests.helpers import connect_raw
from tests.helpers import init_repo


def _bomb(key: str) -> str:
    """~700 bytes that expand to 9^9 (387 million) strings under `key` (a billion laughs)."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append(f"{key}: *i")
    return "---\ntitle: Bomb Notes\n" + "\n".join(lines) + "\n---\n# Bomb\n\n" + "text " * 20


@pytest.mark.parametrize("key", ["tags", "aliases"])
def test_an_alias_bomb_costs_nothing_and_names_its_line(key):
    text = _bomb(key)
    assert len(text) < 900
    tracemalloc.start()
    try:
        doc = parse_document("docs/bomb.md", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # kenso-git 0.x built gigabytes of strings here
    assert doc.tags == () and doc.aliases == ()
    assert doc.fm_title == "Bomb Notes"  # the fields without aliases are still read
    (problem,) = doc.problems
    assert "aliases" in problem.message and "write the values out" in problem.message
    # line 1 is `---`, 2 the title, 3 `a:` (~40 chars expanded): `e:` (~290 kB) is the first
    # to expand past the budget
    assert problem.line == 7


def test_a_few_honest_aliases_still_load():
    text = "---\nbase: &tags [alpha, beta]\ntags: *tags\naliases: [*tags]\n---\n# T\n\nbody\n"
    doc = parse_document("a.md", text)
    assert doc.tags == ("alpha", "beta")
    assert doc.problems == ()


def test_a_recursive_alias_is_refused_not_followed():
    doc = parse_document("a.md", "---\ntags: &a [x, *a]\n---\n# T\n\nbody\n")
    assert doc.tags == ()
    assert [p.line for p in doc.problems] == [2]


def test_an_alias_bomb_is_indexed_without_its_labels_and_warned_about(tmp_path):
    root = init_repo(tmp_path, {"docs/bomb.md": _bomb("tags")})
    warnings: list[str] = []
    report = KnowledgeBase.open(root).ingest(warn=warnings.append)
    assert report.count("ingested") == 1
    assert [w for w in warnings if w.startswith("docs/bomb.md:7:")]
    with connect_raw(root / ".kenso" / "docs.db") as conn:
        (tags,) = conn.execute(
            "SELECT tags FROM chunks WHERE file_path = 'docs/bomb.md'"
        ).fetchone()
    assert tags is None
