"""Ranked paging at a revision: the next_cursor of `search --ref REV` pages the same command
in the next process (each builds its own copy of the revision's index), and the MCP `search`
tool's does with no copy kept (`revision-copies = 0`), while the revision's docs are as they
were; a cursor of another ref, of the checkout or of another query is still refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import ExitCode
from kenso_git.search.pagination import CursorError
from kenso_git.search.pagination import StaleCursorError
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write


def _page(n: int, word: str = "button") -> str:
    return f"# Page {n}\n\nThe {word} control number {n} " + "is described here. " * n + "\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """v1: seven pages; HEAD: one deleted and one edited, so v1's docs differ from the
    checkout's (its copy is not the index as it is)."""
    root = init_repo(tmp_path / "repo", {f"docs/p{n}.md": _page(n) for n in range(1, 8)})
    git(root, "tag", "v1")
    git(root, "rm", "-q", "docs/p7.md")
    write(root, {"docs/p1.md": _page(1) + "\nThe button moved to the toolbar.\n"})
    git(root, "commit", "-q", "-am", "drop p7, edit p1")
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    return root


def _json(root: Path, *args: str) -> Any:
    proc = run_cli(root, "search", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _paths(page: Any) -> list[str]:
    return [hit["path"] for hit in page["results"]]


def _paged(root: Path, query: str, *ref: str) -> list[str]:
    """Every hit of `query`, two a page, each page asked by a process of its own."""
    paths: list[str] = []
    cursor: list[str] = []
    while True:
        page = _json(root, query, "--page-size", "2", *ref, *cursor)
        paths += _paths(page)
        if page["next_cursor"] is None:
            return paths
        cursor = ["--cursor", page["next_cursor"]]


@pytest.mark.parametrize("ref", ["HEAD", "v1"])
def test_cli_pages_a_revision_with_its_own_cursors(repo: Path, ref: str) -> None:
    whole = _paths(_json(repo, "button", "--page-size", "50", "--ref", ref))
    assert len(whole) == (7 if ref == "v1" else 6)
    assert _paged(repo, "button", "--ref", ref) == whole


def test_a_revision_cursor_holds_while_only_the_checkout_changes(repo: Path) -> None:
    cursor = _json(repo, "button", "--page-size", "2", "--ref", "v1")["next_cursor"]
    write(repo, {"docs/p2.md": _page(2) + "\nAn uncommitted button note.\n"})
    assert run_cli(repo, "sync").returncode == 0  # the checkout's index changed; v1 did not
    second = _json(repo, "button", "--page-size", "2", "--ref", "v1", "--cursor", cursor)
    whole = _json(repo, "button", "--page-size", "4", "--ref", "v1")
    assert _paths(second) == _paths(whole)[2:4]


def test_a_cursor_of_another_ref_or_query_is_refused(repo: Path) -> None:
    at_v1 = _json(repo, "button", "--page-size", "2", "--ref", "v1")["next_cursor"]
    at_head = _json(repo, "button", "--page-size", "2", "--ref", "HEAD")["next_cursor"]
    checkout = _json(repo, "button", "--page-size", "2")["next_cursor"]
    for cursor, ref in ((at_v1, ["--ref", "HEAD"]), (at_head, []), (checkout, ["--ref", "HEAD"])):
        proc = run_cli(repo, "search", "button", "--page-size", "2", *ref, "--cursor", cursor)
        assert proc.returncode == ExitCode.USAGE, (cursor, ref)
        assert "or with another ref" in proc.stderr
    proc = run_cli(repo, "search", "control", "--page-size", "2", "--ref", "v1", "--cursor", at_v1)
    assert proc.returncode == ExitCode.USAGE
    assert "is not a next_cursor of this request" in proc.stderr


def test_mcp_search_pages_a_revision_with_no_copy_kept(repo: Path) -> None:
    (repo / ".kenso.toml").write_text("revision-copies = 0\n", encoding="utf-8")
    service = Service(repo)
    try:
        whole, _ = service.search("button", page_size=50, ref="v1")
        paths: list[str] = []
        cursor = None
        while True:
            page, _ = service.search("button", page_size=2, ref="v1", cursor=cursor)
            paths += [hit["path"] for hit in page["results"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert paths == _paths(whole)
        first, _ = service.search("button", page_size=2, ref="v1")
        with pytest.raises(StaleCursorError):
            service.search("button", page_size=2, ref="HEAD", cursor=first["next_cursor"])
        with pytest.raises(CursorError):
            service.search("control", page_size=2, ref="v1", cursor=first["next_cursor"])
    finally:
        service.revisions.close()
