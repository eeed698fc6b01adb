"""Walking every page of a long `find_related` list. Each page loaded every document's
metadata, judged every indexed document by the scope gate and gathered the reasons again
(all pages of a hub's list cost pages x documents); a later page is now cut from the list
its first page made, kept per index generation, path and scope, with the same answers."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import DocumentNotFoundError
from kenso_git.kb import KnowledgeBase
from kenso_git.search import docmeta
from kenso_git.search import pagination
from kenso_git.search.graph.kept import NamedGate
from kenso_git.search.graph.neighbours import REASONS
from kenso_git.serve.service import Service
from kenso_git.store import edges
from kenso_git.text.links import LINKS_TO
from tests.helpers import init_repo

PAGES = 1200  # in the hub's folder: each links to the hub, some relate to it many ways
OUTSIDE = 300  # elsewhere: each links to the hub, every third is linked from it
HUB = "docs/hub.md"
STEMS = ("guides/hub.md", "api/v1/hub.md", "zz/hub.md")  # the same stem
LONELY = "lonely/alone.md"  # related to nothing but its folder mate
TEXT = "explains how the system behaves in detail.\n\n## {0} details\n\nThe {0} words.\n"


def _page_name(i: int) -> str:
    """Names of many lengths (a long name makes a long cursor and row), some with
    characters JSON escapes or keeps as they are."""
    odd = ("", "é-中文-", 'say-"hi"-', "a b (c) & d-", "x" * (i % 61))[i % 5]
    return f"docs/{odd}page-{i:04d}.md"


def _relations(i: int) -> str:
    """Frontmatter relating page `i` to the hub 0, 8, 16 or 24 ways: a page of the long
    rows passes the answer budget before its 50th row."""
    kinds = (i % 4) * 8
    if not kinds:
        return ""
    lines = "".join(
        f"  - path: hub.md\n    relation: depends-on-the-documented-behaviour-of-part-{k:02d}\n"
        for k in range(kinds)
    )
    return f"---\nrelates_to:\n{lines}---\n"


def _files() -> dict[str, str | bytes]:
    links = "".join(f" [o{j}](../out/o-{j:03d}.md)" for j in range(0, OUTSIDE, 3))
    files: dict[str, str | bytes] = {
        HUB: f"# Hub\n\nThe hub {TEXT.format('Hub')}Out:{links}\n",
        LONELY: f"# Alone\n\nAlone {TEXT.format('Alone')}",
        "lonely/mate.md": f"# Mate\n\nMate {TEXT.format('Mate')}",
    }
    for i in range(PAGES):
        title = f"Page {i} " + "with a title long enough to weigh " * (i % 6)
        body = f"# {title}\n\nPage {i} {TEXT.format(i)}Back to the [hub](hub.md).\n"
        files[_page_name(i)] = _relations(i) + body
    for j in range(OUTSIDE):
        files[f"out/o-{j:03d}.md"] = f"# Out {j}\n\nOut {j} {TEXT.format(j)}[hub](../docs/hub.md)\n"
    for stem in STEMS:
        files[stem] = f"# Another hub\n\nAnother hub {TEXT.format('Stem')}"
    return files


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(tmp_path_factory.mktemp("hub") / "repo", _files())
    (root / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


def _stem(path: str) -> str:
    name = path.rpartition("/")[2]
    return name.rpartition(".")[0] or name


def _reasons(conn: Any, path: str, docs: dict[str, Any]) -> dict[str, Any]:
    """`neighbours._reasons` as it was: path -> (reasons, relation types)."""
    found: dict[str, Any] = {}

    def add(other: str, why: str, relation: str | None = None) -> None:
        if other == path or other not in docs:
            return
        reasons, relations = found.setdefault(other, (set(), set()))
        reasons.add(why)
        if relation is not None:
            relations.add(relation)

    for _, target, relation in edges.outgoing(conn, path):
        if relation == LINKS_TO:
            add(target, "links_to")
        else:
            add(target, "relates_to", relation)
    for source, _, relation in edges.incoming(conn, path):
        if relation == LINKS_TO:
            add(source, "linked_from")
        else:
            add(source, "related_from", relation)
    folder, stem = path.rpartition("/")[0], _stem(path)
    for other in docs:
        if other.rpartition("/")[0] == folder:
            add(other, "same_folder")
        elif _stem(other) == stem:
            add(other, "same_stem")
    return found


Listed = tuple[dict[str, Any], list[Any]]


def _old_list(conn: Any, path: str, path_filter: Callable[[str], bool] | None) -> Listed:
    """The old list's making: every document's metadata loaded, every one judged by the
    gate, the reasons gathered; the documents shown and the related ones in order."""
    docs = docmeta.load(conn)
    if path_filter is not None:
        docs = {p: d for p, d in docs.items() if path_filter(p)}
    if path not in docs:
        raise DocumentNotFoundError(path)
    found = _reasons(conn, path, docs)
    ordered = sorted(
        found.items(),
        key=lambda item: (min(REASONS.index(w) for w in item[1][0]), item[0]),
    )
    return docs, ordered


def _old_find_related(
    conn: Any,
    path: str,
    *,
    page_size: int | None = None,
    cursor: str | None = None,
    path_filter: Callable[[str], bool] | None = None,
    listed: Listed | None = None,
) -> dict[str, Any]:
    """`neighbours.find_related` as it was before lists were kept: every page made the list
    again (`_old_list`). `listed`, that list made by `_old_list` in the same read, only
    saves the test making it again for each page of one walk: nothing changes in between."""
    size = pagination.clamp_page(page_size)
    generation = docmeta.generation(conn)
    check = pagination.request_check("related", path)
    offset = pagination.read_offset(cursor, check, generation)
    docs, ordered = listed if listed is not None else _old_list(conn, path, path_filter)
    page: dict[str, Any] = {
        "path": path,
        "results": [
            {
                "path": other,
                "why": sorted(reasons, key=REASONS.index),
                "relation_types": sorted(relations),
                "title": docs[other].title,
            }
            for other, (reasons, relations) in ordered[offset : offset + size]
        ],
        "total": len(ordered),
        "returned": 0,
        "page_size": size,
        "next_cursor": None,
        "has_more": False,
        "token_budget": 0,
    }
    while True:
        kept = len(page["results"])
        more = offset + kept < len(ordered)
        page["returned"] = kept
        page["has_more"] = more
        page["next_cursor"] = (
            pagination.offset_cursor(offset + kept, check, generation) if more else None
        )
        page["token_budget"] = pagination.MAX_ANSWER_CHARS // pagination.CHARS_PER_TOKEN
        chars = len(json.dumps(page, indent=2, ensure_ascii=False))
        if chars <= pagination.MAX_ANSWER_CHARS or kept <= 1:
            break
        page["results"].pop()
    page["token_budget"] = -(-chars // pagination.CHARS_PER_TOKEN)
    return page


def _old_answer(service: Service, path: str, page_size: int | None, cursor: str | None) -> Any:
    """What `Service.find_related` answered before: the old page, through the same gate."""
    with service.gated() as gate:
        return service.kb().read(
            lambda conn: _old_find_related(
                conn, path, page_size=page_size, cursor=cursor, path_filter=gate
            )
        )


def _old_answers(
    service: Service, path: str, page_size: int | None, cursors: list[str | None]
) -> list[Any]:
    """`_old_answer` at each cursor of one walk, read under one gate: the list the old code
    made again for each page is made once (the index and the scope are the same for all)."""
    with service.gated() as gate:

        def pages(conn: Any) -> list[Any]:
            listed = _old_list(conn, path, gate)
            return [
                _old_find_related(
                    conn, path, page_size=page_size, cursor=cursor, path_filter=gate, listed=listed
                )
                for cursor in cursors
            ]

        return service.kb().read(pages)


Door = Callable[[str, int | None, str | None], Any]


def _service_door(service: Service) -> Door:
    """The MCP tool's handler (and the `related` command's)."""
    return lambda path, size, cursor: service.find_related(path, size, cursor)[0]


def _named_door(service: Service) -> Door:
    """The handler as it is once its gate names its scope (`NamedGate`, as get_related's)."""

    def door(path: str, size: int | None, cursor: str | None) -> Any:
        scope = service.scope
        rel = scope.resolve(path)
        with scope.gating(service.kb().same_file()) as gate:
            named = NamedGate(gate, scope)
            return service.kb().find_related(rel, page_size=size, cursor=cursor, path_filter=named)

    return door


def _walk(door: Door, path: str, size: int | None) -> list[Any]:
    pages = [door(path, size, None)]
    while pages[-1]["next_cursor"] is not None:
        pages.append(door(path, size, pages[-1]["next_cursor"]))
    return pages


def _bytes(page: Any) -> str:
    return json.dumps(page, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(
    ("named", "size"), [(False, 50), (True, 50), (True, None)], ids=["served", "named", "named-10"]
)
def test_every_page_of_a_hub_is_the_answer_the_old_pages_gave(
    hub: Path, named: bool, size: int | None
) -> None:
    service = Service(hub)
    door = (_named_door if named else _service_door)(service)
    pages = _walk(door, HUB, size)
    cursors = [None] + [page["next_cursor"] for page in pages[:-1]]
    old = _old_answers(service, HUB, size, cursors)
    assert len(pages) == len(old) >= 20
    for k, (new, was) in enumerate(zip(pages, old, strict=True)):
        assert _bytes(new) == _bytes(was), k  # the bytes the MCP answer is made of
    rows = [row for page in pages for row in page["results"]]
    assert len(rows) == len({row["path"] for row in rows}) == pages[0]["total"]
    assert len(rows) == PAGES + OUTSIDE + len(STEMS)
    assert {reason for row in rows for reason in row["why"]} == set(REASONS) - {"relates_to"}
    if size == 50:  # the long rows pass the budget: pages cut short of their page_size
        assert any(page["returned"] < 50 and page["has_more"] for page in pages)


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
    page = kb.find_related(HUB, page_size=50, path_filter=gate)
    assert gate.asked > PAGES  # the first page judges every related document
    pages = 1
    while page["next_cursor"] is not None:
        gate.asked = 0
        page = kb.find_related(HUB, page_size=50, cursor=page["next_cursor"], path_filter=gate)
        pages += 1
        # before: every indexed document, on each page
        assert gate.asked == 1 + page["returned"], gate.asked
    assert pages >= 20


def test_a_later_page_reads_no_link_of_the_graph_again(hub: Path) -> None:
    kb = KnowledgeBase.open(hub)
    first = kb.find_related(HUB, path_filter=CountingGate())
    statements: list[str] = []
    kb.thread_connection().set_trace_callback(statements.append)
    cursor = first["next_cursor"]
    try:
        for _ in range(5):
            cursor = kb.find_related(HUB, cursor=cursor, path_filter=CountingGate())["next_cursor"]
    finally:
        kb.thread_connection().set_trace_callback(None)
    assert cursor is not None and statements  # it did read (the index's generation)
    # before: every page read the hub's links both ways again
    assert [sql for sql in statements if "link_rows" in sql] == []


def test_a_first_page_judges_only_the_start_and_its_related_documents(hub: Path) -> None:
    asked: list[str] = []

    def plain(path: str) -> bool:  # names no scope: nothing made under it is kept
        asked.append(path)
        return True

    kb = KnowledgeBase.open(hub)
    page = kb.find_related(LONELY, path_filter=plain)
    assert [row["path"] for row in page["results"]] == ["lonely/mate.md"]
    # before: each of the index's ~1,500 documents
    assert sorted(asked) == [LONELY, "lonely/mate.md"]
    asked.clear()
    later = kb.find_related(HUB, cursor=kb.find_related(HUB)["next_cursor"], path_filter=plain)
    assert later["returned"] and len(asked) == 1 + PAGES + OUTSIDE + len(STEMS)


class HidingGate(CountingGate):
    """Another scope's gate: it refuses the docs with CJK names."""

    scope_key = "hiding"

    def __call__(self, path: str) -> bool:
        super().__call__(path)
        return "中文" not in path


def test_a_list_is_kept_for_its_own_scope_only(hub: Path) -> None:
    kb = KnowledgeBase.open(hub)
    every, hiding = CountingGate(), HidingGate()
    # one list kept for each scope, of the same path and index
    firsts = {
        gate: kb.find_related(HUB, page_size=50, path_filter=gate) for gate in (every, hiding)
    }
    assert firsts[every]["total"] > firsts[hiding]["total"]
    for gate, first in firsts.items():
        page = kb.find_related(HUB, page_size=50, cursor=first["next_cursor"], path_filter=gate)
        now = kb.read(lambda conn, gate=gate: _all_rows(conn, gate))
        start = first["returned"]
        assert page["total"] == len(now)
        assert page["results"] == now[start : start + page["returned"]]


def _all_rows(conn: Any, gate: Callable[[str], bool]) -> list[Any]:
    listed = _old_list(conn, HUB, gate)  # one read: the same list for every page
    page = _old_find_related(conn, HUB, page_size=50, path_filter=gate, listed=listed)
    rows = list(page["results"])
    while page["next_cursor"] is not None:
        page = _old_find_related(
            conn, HUB, page_size=50, cursor=page["next_cursor"], path_filter=gate, listed=listed
        )
        rows += page["results"]
    return rows


def test_a_forged_or_stale_cursor_is_still_refused(hub: Path) -> None:
    service = Service(hub)
    door = _named_door(service)
    first = door(HUB, None, None)
    check = pagination.request_check("related", HUB)
    for cursor, path in [
        (first["next_cursor"], "docs/page-0000.md"),  # another request's
        (first["next_cursor"][:-1] + "0", HUB),  # its check altered
        (pagination.keyset_cursor("docs/page-0001.md", check), HUB),  # not an offset cursor
        (pagination.offset_cursor(10, check, "another generation"), HUB),  # stale
    ]:
        for answer in (door, _service_door(service)):
            with pytest.raises(pagination.CursorError) as new_err:
                answer(path, None, cursor)
            with pytest.raises(pagination.CursorError) as old_err:
                _old_answer(service, path, None, cursor)
            assert type(new_err.value) is type(old_err.value)
            assert new_err.value.message == old_err.value.message


def test_a_page_never_shows_a_doc_gone_since_the_list_was_made(hub: Path) -> None:
    """A later page is cut from the kept list only while the gate lets through every path
    it shows: a doc deleted under an index that does not sync (query-sync off) is refused
    by the gate, and the list is made again from that page on."""
    (hub / ".kenso.toml").write_text("watch = false\nquery-sync = false\n", encoding="utf-8")
    service = Service(hub)
    door = _named_door(service)
    pages = _walk(door, HUB, 50)
    # a doc from the middle of the second page and one of the fifth: on no other page
    second, fifth = (pages[k]["results"][20]["path"] for k in (1, 4))
    gone = [second, fifth]
    try:
        (hub / second).rename(hub / (second + ".away"))
        cursor = pages[0]["next_cursor"]
        page = door(HUB, 50, cursor)
        assert _bytes(page) == _bytes(_old_answer(service, HUB, 50, cursor))  # made again
        (hub / fifth).rename(hub / (fifth + ".away"))  # after the list was made again
        later = [page]
        while later[-1]["next_cursor"] is not None:
            cursor = later[-1]["next_cursor"]
            later.append(door(HUB, 50, cursor))
            # until a page shows fifth, `total` still counts it (the list kept meanwhile)
            was = _old_answer(service, HUB, 50, cursor)
            assert later[-1]["results"] == was["results"]
        assert _bytes(later[-1]) == _bytes(was)  # made again once a page reached fifth
        shown = [row for page in later for row in page["results"]]
        assert not set(gone) & {row["path"] for row in shown}
        with service.gated() as gate:  # the rows after the first page, as they are now
            now = service.kb().read(lambda conn: _all_rows(conn, gate))
        assert shown == now[pages[0]["returned"] :]
        (hub / HUB).rename(hub / (HUB + ".away"))  # the start itself
        try:
            for answer in (door, _service_door(service)):
                with pytest.raises(DocumentNotFoundError):
                    answer(HUB, 50, pages[0]["next_cursor"])
        finally:
            os.replace(hub / (HUB + ".away"), hub / HUB)
    finally:
        for rel in gone:
            os.replace(hub / (rel + ".away"), hub / rel)
        (hub / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")


def test_the_served_tool_cuts_a_later_page_from_its_kept_list(hub: Path) -> None:
    # Service.find_related (the MCP tool, `related --cursor`) names its scope, as get_related
    # does: before, its plain gate kept nothing and every page walked the graph again
    service = Service(hub)
    cursor = service.find_related(HUB, None, None)[0]["next_cursor"]
    statements: list[str] = []
    service.kb().thread_connection().set_trace_callback(statements.append)
    try:
        for _ in range(3):
            cursor = service.find_related(HUB, None, cursor)[0]["next_cursor"]
    finally:
        service.kb().thread_connection().set_trace_callback(None)
    assert cursor is not None and statements
    assert [sql for sql in statements if "link_rows" in sql] == []
