"""Walking every page of a long `get_related` list. Each page walked the whole graph again,
judged every row by the scope gate and measured the JSON of every row after its cursor:
3.6 s for the 28 pages of a 9,601-row list whose first page took 271 ms. A later page is
now cut from the list its first page walked (kept per index generation, request and
scope), and its answer is the one the old code gave, page by page."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search import pagination
from kenso_git.search.graph.related import get_related
from kenso_git.serve.service import Service
from tests.helpers import init_repo

PAGES = 2400  # each links to the hub; every fifth also relates to it as depends_on
LEAVES, DEEP = 300, 100  # depth 2 and 3: page j links to leaf j, leaf j to deep j
HUB = "hub.md"
TEXT = "explains how the system behaves in detail.\n\n## {0} details\n\nThe {0} words.\n"


def _page_name(i: int) -> str:
    """Names of many lengths (a long name makes a long cursor: the size of a page is then
    not monotonic in its rows), some with characters JSON escapes or keeps as they are."""
    odd = ("", "é-中文-", 'say-"hi"-', "a b (c) & d-", "x" * (i % 61))[i % 5]
    return f"docs/{odd}page-{i:04d}.md"


def _files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {HUB: f"# Hub\n\nThe hub {TEXT.format('Hub')}"}
    for i in range(PAGES):
        front = "---\nrelates_to:\n  - path: hub.md\n    relation: depends_on\n---\n"
        leaf = f" See [leaf](../leaf/leaf-{i:03d}.md)." if i < LEAVES else ""
        body = f"# Page {i}\n\nPage {i} {TEXT.format(i)}Back to the [hub](../hub.md).{leaf}\n"
        files[_page_name(i)] = (front if i % 5 == 0 else "") + body
    for j in range(LEAVES):
        deep = f" Deeper: [deep](../deep/deep-{j:03d}.md)." if j < DEEP else ""
        files[f"leaf/leaf-{j:03d}.md"] = f"# Leaf {j}\n\nLeaf {j} {TEXT.format(j)}{deep}\n"
    for j in range(DEEP):
        files[f"deep/deep-{j:03d}.md"] = f"# Deep {j}\n\nDeep {j} {TEXT.format(j)}\n"
    return files


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(tmp_path_factory.mktemp("hub") / "repo", _files())
    (root / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


def _old_page(
    conn: Any,
    path: str,
    depth: int,
    relation_type: str | None,
    cursor: str | None,
    path_filter: Callable[[str], bool],
) -> dict[str, Any]:
    """`related_page` as it was before lists were kept: the whole list walked, the rows
    after the cursor sliced from it, and every candidate page measured as JSON."""
    check = pagination.request_check("get_related", path, depth, relation_type)
    after = (
        None if cursor is None else tuple(json.loads(pagination.read_keyset(cursor, check) or ""))
    )
    rows = get_related(
        conn, path, depth=depth, relation_type=relation_type, path_filter=path_filter
    )

    def key(row: Any) -> tuple[int, str, str]:
        return row["depth"], row["related_path"], row["relation_type"]

    rest = rows if after is None else [r for r in rows if key(r) > after]

    def page(kept: list[Any], more: bool) -> dict[str, Any]:
        resume = None
        if more and kept:
            place = json.dumps(list(key(kept[-1])), ensure_ascii=False)
            resume = pagination.keyset_cursor(place, check)
        return {
            "results": kept,
            "total": len(rows),
            "truncated": resume is not None,
            "next_cursor": resume,
        }

    def fits(p: dict[str, Any]) -> bool:
        return len(json.dumps(p, indent=2, ensure_ascii=False)) <= pagination.MAX_ANSWER_CHARS

    whole = page(rest, False)
    if fits(whole):
        return whole
    return page(rest[: pagination.most_that_fit(rest, page, fits)], True)


def _old_answer(
    service: Service, path: str, depth: int, relation_type: str | None, cursor: str | None
) -> tuple[Any, Any]:
    """What `Service.get_related` answered before: the old page, through the same gate."""
    with service.gated() as gate:
        got = service.kb().read(
            lambda conn: _old_page(conn, path, depth, relation_type, cursor, gate)
        )
    if cursor is None and not got["truncated"]:
        return got["results"], {"results": got["results"]}
    return got, got


def _answer(service: Service, depth: int, relation_type: str | None, cursor: str | None) -> Any:
    """`Service.get_related` of the hub: (the answer's text payload, its structured copy)."""
    return service.get_related(HUB, depth, relation_type, cursor)


def _walk(service: Service, depth: int, relation_type: str | None) -> list[tuple[Any, Any]]:
    answers = []
    cursor = None
    while True:
        text, structured = _answer(service, depth, relation_type, cursor)
        answers.append((text, structured))
        if isinstance(text, list) or text["next_cursor"] is None:
            return answers
        cursor = text["next_cursor"]


@pytest.mark.parametrize(("depth", "relation_type"), [(1, None), (3, None), (2, "depends_on")])
def test_every_page_of_a_hub_is_the_answer_the_old_pages_gave(
    hub: Path, depth: int, relation_type: str | None
) -> None:
    service = Service(hub)
    answers = _walk(service, depth, relation_type)
    cursors = [None] + [text["next_cursor"] for text, _ in answers[:-1]]
    old = [_old_answer(service, HUB, depth, relation_type, cursor) for cursor in cursors]
    assert len(answers) == len(old) >= 2
    for k, (new, was) in enumerate(zip(answers, old, strict=True)):
        # the bytes the MCP answer is made of, page by page
        assert json.dumps(new, indent=2, ensure_ascii=False) == json.dumps(
            was, indent=2, ensure_ascii=False
        ), k
    rows = [row for text, _ in answers for row in text["results"]]
    whole = KnowledgeBase.open(hub).get_related(HUB, depth=depth, relation_type=relation_type)
    assert rows == whole
    assert len(rows) > (PAGES if depth == 1 else 0)
    assert (depth, relation_type) != (3, None) or {row["depth"] for row in rows} == {1, 2, 3}
    assert relation_type or any('"' in row["related_path"] for row in rows)


def test_a_later_page_reads_no_link_of_the_graph_again(hub: Path) -> None:
    service = Service(hub)
    first, _ = _answer(service, 3, None, None)
    statements: list[str] = []
    service.kb().thread_connection().set_trace_callback(statements.append)
    pages = 1
    cursor = first["next_cursor"]
    while cursor is not None:
        page, _ = _answer(service, 3, None, cursor)
        cursor = page["next_cursor"]
        pages += 1
    assert pages >= 3 and statements  # it did read (the generation, the gate's inodes)
    # before: every page walked the graph again, three levels of links each time
    assert [sql for sql in statements if "link_rows" in sql] == []


class CountingGate:
    """A gate naming its scope, that lets every path through and counts what it judged."""

    scope_key = "counting"

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, path: str) -> bool:
        self.asked += 1
        return True


def test_a_later_page_judges_only_the_rows_it_shows(hub: Path) -> None:
    kb = KnowledgeBase.open(hub)
    gate = CountingGate()
    page = kb.get_related_page(HUB, path_filter=gate)
    assert gate.asked > PAGES  # the first page walks every row
    while page["next_cursor"] is not None:
        gate.asked = 0
        page = kb.get_related_page(HUB, cursor=page["next_cursor"], path_filter=gate)
        # before: every row of the list, on each page
        assert gate.asked == 1 + len(page["results"]), gate.asked


class HidingGate(CountingGate):
    """Another scope's gate: it refuses the docs with CJK names."""

    scope_key = "hiding"

    def __call__(self, path: str) -> bool:
        super().__call__(path)
        return "中文" not in path


def test_a_list_is_kept_for_its_own_scope_only(hub: Path) -> None:
    kb = KnowledgeBase.open(hub)
    every, hiding = CountingGate(), HidingGate()
    # one list kept for each scope, of the same request and index
    firsts = {gate: kb.get_related_page(HUB, path_filter=gate) for gate in (every, hiding)}
    assert firsts[every]["total"] > firsts[hiding]["total"]
    for gate, first in firsts.items():
        page = kb.get_related_page(HUB, cursor=first["next_cursor"], path_filter=gate)
        now = kb.get_related(HUB, path_filter=gate)
        start = len(first["results"])
        assert page["total"] == len(now)
        assert page["results"] == now[start : start + len(page["results"])]
    asked: list[str] = []

    def plain(path: str) -> bool:  # names no scope: nothing walked under it is kept
        asked.append(path)
        return True

    first = kb.get_related_page(HUB, path_filter=plain)
    asked.clear()
    kb.get_related_page(HUB, cursor=first["next_cursor"], path_filter=plain)
    assert len(asked) > PAGES


def test_a_forged_or_foreign_cursor_is_still_refused(hub: Path) -> None:
    service = Service(hub)
    first, _ = _answer(service, 1, None, None)
    check = pagination.request_check("get_related", HUB, 1, None)
    for cursor, depth in [
        (first["next_cursor"], 2),  # another request's
        (first["next_cursor"][:-1] + "0", 1),  # its check altered
        (pagination.keyset_cursor('[1, "x"]', check), 1),  # not a row's key
        (pagination.keyset_cursor("not json", check), 1),
    ]:
        with pytest.raises(pagination.CursorError, match="is not a next_cursor of get_related"):
            service.get_related(HUB, depth, None, cursor)


def test_a_page_never_shows_a_doc_gone_since_the_list_was_walked(hub: Path) -> None:
    """A later page is cut from the kept list only while the gate lets through every path
    it shows: a doc deleted under an index that does not sync (query-sync off) is refused
    by the gate, and the list is walked again from that page on."""
    (hub / ".kenso.toml").write_text("watch = false\nquery-sync = false\n", encoding="utf-8")
    service = Service(hub)
    answers = _walk(service, 1, None)
    # a doc from the middle of the second page and one of the fifth: on no other page
    second, fifth = (answers[k][0]["results"][20]["related_path"] for k in (1, 4))
    gone = [second, fifth]
    try:
        (hub / second).rename(hub / (second + ".away"))
        cursor = answers[0][0]["next_cursor"]
        page = _answer(service, 1, None, cursor)
        assert page == _old_answer(service, HUB, 1, None, cursor)  # walked again
        (hub / fifth).rename(hub / (fifth + ".away"))  # after the list was walked again
        shown = list(page[0]["results"])
        while page[0]["next_cursor"] is not None:
            page = _answer(service, 1, None, page[0]["next_cursor"])
            shown += page[0]["results"]
        assert not set(gone) & {row["related_path"] for row in shown}
        with service.gated() as gate:  # the rows after the first page, as they are now
            now = service.kb().get_related(HUB, path_filter=gate)
        assert shown == now[len(answers[0][0]["results"]) :]
        assert len(now) == len(answers[0][0]["results"]) + len(shown)
    finally:
        for rel in gone:
            os.replace(hub / (rel + ".away"), hub / rel)
        (hub / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
