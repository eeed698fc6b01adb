"""Walking every page of a long `changed_docs` list. Each page made the JSON of up to 1,000
results after its cursor and measured pages of hundreds of them (the whole rest first,
then halves of it), though an answer holds a tenth of that; a page now makes and measures
only the results a page that fits could hold, with the same answers, page by page."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any
from typing import cast

import pytest

from kenso_git.api.git import history
from kenso_git.api.search import keyset_cursor
from kenso_git.api.search import most_that_fit
from kenso_git.api.search import request_check
from kenso_git.api.workspace import is_markdown
from kenso_git.serve import caps
from kenso_git.serve.history import MAX_CHANGES
from kenso_git.serve.history import _hidden_links
from kenso_git.serve.history import _resumes_after
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

ADDED = 700  # in one commit after `base`; the work tree changes a few more


def _name(i: int) -> str:
    """Names of many lengths, some with characters JSON escapes or keeps as they are."""
    odd = ("", "é-中文-", 'say-"hi"-', "a b (c) & d-", "x" * (i % 61))[i % 5]
    return f"docs/{odd}added-{i:04d}.md"


def _text(i: int) -> str:
    return f"# Page {i}\n\n## Section {i}\n\nThe word dugong number {i} is in this page.\n"


def _kept(i: int) -> str:
    """A doc of `base`: no line like an added page's (git would take a deleted one for
    renamed to one of them)."""
    return f"# Kept doc {i}\nKept doc {i} says one thing.\nKept doc {i} says another.\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`base`: 60 docs; then a commit adding 700, renaming 10, deleting 10 and changing
    10 (its subject long), and a work tree changing 5 more and adding 3."""
    old = {f"kept/doc-{i:02d}.md": _kept(i) for i in range(60)}
    root = init_repo(tmp_path_factory.mktemp("changed") / "repo", dict(old))
    (root / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
    git(root, "tag", "base")
    write(root, {_name(i): _text(i) for i in range(ADDED)})
    (root / "moved").mkdir()
    for i in range(10):
        (root / f"kept/doc-{i:02d}.md").rename(root / f"moved/renamed-{i:02d}.md")
        (root / f"kept/doc-{10 + i:02d}.md").unlink()
        write(root, {f"kept/doc-{20 + i:02d}.md": _kept(20 + i) + "Changed.\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "add, move and drop docs " + "and say so at length " * 20)
    write(root, {f"kept/doc-{30 + i:02d}.md": _kept(30 + i) + "Changed.\n" for i in range(5)})
    write(root, {f"zz/untracked-{i}.md": _text(300 + i) for i in range(3)})
    return root


def _old_changed_docs(
    service: Service,
    since: str,
    until: str | None,
    limit: int | None = None,
    cursor: str | None = None,
    listed: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`serve.history.changed_docs` as it was: every result after the cursor (to the
    limit) made and the whole rest measured, then the most that fit searched among all.
    `listed` keeps the changes it lists for the next page of the same walk (the old code
    listed them again for each page: the same revisions, scope and work tree)."""
    scope = service.scope
    scope.reload_if_changed()

    def is_doc(path: str) -> bool:
        return is_markdown(path) and scope.shows(path)

    old = history.resolve_revision(service.workspace, since)
    new = None if until is None else history.resolve_revision(service.workspace, until)
    check = request_check("changed_docs", old, new)
    after = _resumes_after(cursor, check)
    found = None if listed is None else listed.get("found")
    if found is None:
        found = history.changes(
            service.workspace, old, new, is_doc=is_doc, hidden_links=_hidden_links(service, is_doc)
        )
        if listed is not None:
            listed["found"] = found
    rest = found if after is None else [c for c in found if c.path > after]
    cap = MAX_CHANGES if limit is None else max(1, min(int(limit), MAX_CHANGES))
    items = [cast("dict[str, Any]", c.to_dict()) for c in rest[:cap]]

    def page(kept: list[Any], more: bool) -> dict[str, Any]:
        resume = keyset_cursor(kept[-1]["path"], check) if more and kept else None
        return {
            "since": old,
            "until": new,
            "results": kept,
            "total": len(found),
            "truncated": resume is not None,
            "next_cursor": resume,
        }

    out = page(items, len(rest) > cap)
    if caps.fits(out):
        return out
    return page(items[: most_that_fit(items, page, caps.fits)], True)


def _walk(service: Service, since: str, until: str | None, limit: int | None) -> list[Any]:
    pages = [service.changed_docs(since, until, limit)[0]]
    while pages[-1]["next_cursor"] is not None:
        pages.append(service.changed_docs(since, until, limit, pages[-1]["next_cursor"])[0])
    return pages


def _bytes(page: Any) -> str:
    return json.dumps(page, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(
    ("until", "limit"), [(None, None), ("HEAD", None), ("HEAD", 1000), (None, 130), ("HEAD", 25)]
)
def test_every_page_is_the_answer_the_old_pages_gave(
    repo: Path, until: str | None, limit: int | None
) -> None:
    service = Service(repo)
    pages = _walk(service, "base", until, limit)
    cursors = [None] + [page["next_cursor"] for page in pages[:-1]]
    listed: dict[str, Any] = {}  # the changes listed once for the walk
    old = [_old_changed_docs(service, "base", until, limit, cursor, listed) for cursor in cursors]
    assert len(pages) == len(old) >= 5
    for k, (new, was) in enumerate(zip(pages, old, strict=True)):
        assert _bytes(new) == _bytes(was), k  # the bytes the MCP answer is made of
    rows = [row for page in pages for row in page["results"]]
    assert len(rows) == pages[0]["total"] == ADDED + 30 + (8 if until is None else 0)
    assert [row["path"] for row in rows] == sorted(row["path"] for row in rows)
    assert {row["status"] for row in rows} == {"added", "modified", "deleted", "renamed"}
    if limit is None:  # cut by the result cap, never by the limit
        assert all(page["truncated"] and len(page["results"]) < 200 for page in pages[:-1])


@contextmanager
def _counting() -> Iterator[dict[str, int]]:
    """Counts, on this thread, the results made (`Change.to_dict`) and the results put
    into JSON (`json.dumps` of a result, or of a page: each of its results)."""
    made, dumps = history.Change.to_dict.__code__, json.dumps.__code__
    seen = {"made": 0, "serialized": 0, "pages": 0}

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        if frame.f_code is made:
            seen["made"] += 1
        elif frame.f_code is dumps:
            obj = frame.f_locals["obj"]
            if isinstance(obj, dict) and "results" in obj:
                seen["pages"] += 1
                seen["serialized"] += len(obj["results"])
            elif isinstance(obj, dict) and "status" in obj:
                seen["serialized"] += 1

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def test_a_page_makes_and_measures_only_the_results_that_can_fit(repo: Path) -> None:
    service = Service(repo)
    cursor = None
    pages = 0
    while True:
        with _counting() as seen:
            page, _ = service.changed_docs("base", "HEAD", None, cursor)
        pages += 1
        shown = len(page["results"])
        assert seen["pages"], seen  # it did measure its page
        if page["next_cursor"] is None:
            assert seen["made"] == seen["serialized"] == shown  # the rest fit: each once
            break
        # a few more than it shows (up to where their JSON alone passes the cap), not
        # every one after the cursor, to 1,000 (before: all 730 on the first page, and
        # pages of 365, 182... of them measured)
        assert shown < seen["made"] <= shown + 10, (pages, seen)
        assert seen["serialized"] <= shown + 10, (pages, seen)
        cursor = page["next_cursor"]
    assert pages >= 5


def test_a_page_is_measured_to_the_character_from_its_results(repo: Path) -> None:
    """The sizes a page is cut by, added up from its results', are its JSON's length:
    renamed, deleted, uncommitted and untracked results, names JSON escapes."""
    from kenso_git.serve.history import _nested_chars

    rows = [row for page in _walk(Service(repo), "base", None, 40) for row in page["results"]]
    assert {"old_path", "uncommitted"} <= {key for row in rows for key in row}
    assert any(row["last_commit"] is None for row in rows)
    for k in (1, 2, 7, 40):
        for start in range(0, len(rows) - k, 97):
            shown = rows[start : start + k]
            page = {"since": "a", "until": None, "results": shown, "total": 1, "next_cursor": None}
            frame = {**page, "results": []}
            added = sum(_nested_chars(row) for row in shown) + 6 * k + 4
            assert len(_bytes(page)) == len(_bytes(frame)) - 2 + added
