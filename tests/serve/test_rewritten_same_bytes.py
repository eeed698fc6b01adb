"""A doc written again with the same bytes (a `sed -i` that matched nothing, an editor's
atomic save) gets a new inode, yet `git status` lists no such file, so the query-time check
never syncs it: the search tools' gate, which serves a hit only from the file its text was
read from (#27), dropped it until an `ingest`. The gate now compares the bytes with the
indexed blob id, serves the hit and records the new stat data; another file's text is
still refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store.files import load_files
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo

DOCS = {
    "docs/a.md": doc("Alpha", "Alpha is a page about zebras and walruses, long enough to index.\n"),
    "docs/b.md": doc("Beta", "Beta is a page about pelicans and herons, long enough to index.\n"),
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "pelicans"}),
    ("search", {"query": "pelicans"}),
    ("search_multi", {"queries": ["pelicans"]}),
    ("regex_search", {"pattern": "pelicans"}),
]


def _rewrite(path: Path, data: bytes) -> None:
    """Write `path` anew as `sed -i` and atomic-save editors do: a new file, renamed over."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


def _indexed_inode(kb: KnowledgeBase, path: str) -> int:
    return kb.read(lambda conn: load_files(conn, [path])[path].inode)


def _marked_repo(root: Path, extra: str = "") -> Path:
    """An indexed repository whose index holds a git mark (a query synced a commit)."""
    init_repo(root, DOCS)
    if extra:
        (root / ".kenso.toml").write_text(extra, encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    (root / "docs/c.md").write_text(doc("Gamma", "Gamma is a third page, about gannets.\n"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add c")
    KnowledgeBase.open(root).search("gannets")  # syncs the commit, records the mark
    return root


async def _paths(root: Path) -> dict[str, str]:
    """Each search tool's answer for `pelicans`, over one MCP session."""
    got: dict[str, str] = {}
    async with Client(build_server(Service(root))) as client:
        for tool, args in CALLS:
            result = await client.call_tool(tool, args)
            body = result.structured_content
            got[tool] = json.dumps(body if body is not None else result.content[0].text)  # type: ignore[union-attr]
    return got


@pytest.mark.anyio
async def test_a_doc_written_again_with_the_same_bytes_stays_in_every_search_tool(
    tmp_path: Path,
) -> None:
    root = _marked_repo(tmp_path / "repo")
    b = root / "docs/b.md"
    kb = KnowledgeBase.open(root)
    before = _indexed_inode(kb, "docs/b.md")
    _rewrite(b, b.read_bytes())
    assert b.stat().st_ino != before
    assert git(root, "status", "--porcelain") == ""  # nothing for git to list

    got = await _paths(root)

    assert all("docs/b.md" in answer for answer in got.values()), got
    # the row now holds the file's stat data: later calls need not read it again
    assert _indexed_inode(KnowledgeBase.open(root), "docs/b.md") == b.stat().st_ino
    assert all("docs/b.md" in answer for answer in (await _paths(root)).values())


@pytest.mark.anyio
async def test_a_doc_written_again_with_other_bytes_is_not_served_with_its_old_text(
    tmp_path: Path,
) -> None:
    """The gate's purpose stands: with no sync to catch up (query-sync off), a file of the
    same size but other bytes is never served with the text the index read before."""
    root = _marked_repo(tmp_path / "repo", extra="watch = false\nquery-sync = false\n")
    b = root / "docs/b.md"
    old = b.read_bytes()
    new = old.replace(b"pelicans", b"penguins")
    assert len(new) == len(old)
    _rewrite(b, new)
    kb = KnowledgeBase.open(root)
    before = _indexed_inode(kb, "docs/b.md")

    got = await _paths(root)

    assert all("docs/b.md" not in answer for answer in got.values()), got
    assert _indexed_inode(KnowledgeBase.open(root), "docs/b.md") == before  # nothing written
