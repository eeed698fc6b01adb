"""A page whose mtime is ahead of the clock (`touch -d`, a tarball from a machine whose clock
runs fast, an NFS server ahead of its client) is served by `get_doc` as its bytes are the
indexed ones. Before, the racy rule (a file whose mtime is not before the index read it may
have been written since) refused it as "changed on disk since it was indexed" on every call
until the clock passed its mtime: a sync, an ingest or `ingest --rebuild` left it racy, while
`search` and `read_snippet` served the same page (t48d, defect 2). A racy page is now settled
by its bytes, as git settles a racy entry: served when their blob id is the indexed one, and
an edit is still noticed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.api.page import racy_unchanged
from kenso_git.errors import KensoError
from kenso_git.index.refresh import disk_state
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.git import blob_id
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store.files import load_files
from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli

PAGE = doc("Widget page", "The widget explains configuration of widget systems. " * 3)
EDITED = doc("Widget page", "The gadget explains configuration of gadget systems. " * 3)
AHEAD = 3600 * 10**9  # an hour ahead of the clock, in nanoseconds


def _stamp_ahead(path: Path) -> None:
    ahead = time.time_ns() + AHEAD
    os.utime(path, ns=(ahead, ahead))


def _rewrite_in_place(path: Path, text: str) -> None:
    """A save keeping the inode, stamped ahead as the page was (one clock runs fast)."""
    mtime = path.stat().st_mtime_ns
    with path.open("w", encoding="utf-8") as f:
        f.write(text)
    os.utime(path, ns=(mtime, mtime))


@pytest.fixture(params=["whole", "scoped"])
def ahead(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """docs/p.md committed, stamped an hour ahead, then indexed by `ingest --rebuild` and
    `sync`: with and without agent-scoped-roots."""
    files = {"docs/p.md": PAGE, ".gitignore": ".kenso/\n"}
    if request.param == "scoped":
        files[".kenso.toml"] = 'agent-scoped-roots = ["docs"]\n'
    root = init_repo(tmp_path / "repo", files)
    _stamp_ahead(root / "docs/p.md")
    for args in (("ingest", "--rebuild", "--no-lint"), ("sync",)):
        proc = cli(root, *args)
        assert proc.returncode == 0, proc.stderr
    return root


async def _answers(root: Path, query: str) -> dict[str, Any]:
    """get_doc, search_docs and read_snippet of docs/p.md on one MCP session of `root`."""
    calls = {
        "get_doc": {"path": "docs/p.md"},
        "search_docs": {"query": query},
        "read_snippet": {"path": "docs/p.md", "query": query},
    }
    out: dict[str, Any] = {}
    async with Client(build_server(Service(root))) as client:
        for tool, args in calls.items():
            result = await client.call_tool(tool, args)
            text = result.content[0].text  # type: ignore[union-attr]
            out[tool] = ("error", text) if result.is_error else json.loads(text)
    return out


@pytest.mark.anyio
async def test_get_doc_serves_a_page_stamped_ahead_as_search_and_read_snippet_do(
    ahead: Path,
) -> None:
    assert (ahead / "docs/p.md").stat().st_mtime_ns > time.time_ns()  # still ahead
    for _ in range(2):  # not once: every call, while the clock is behind the page
        got = await _answers(ahead, "widget")
        assert "error" not in got["get_doc"], got["get_doc"]
        assert "widget explains configuration" in got["get_doc"]["content"]
        assert "stale" not in got["get_doc"]
        assert "docs/p.md" in json.dumps(got["search_docs"])
        assert "widget" in json.dumps(got["read_snippet"])


@pytest.mark.anyio
async def test_an_edit_stamped_ahead_is_served_as_edited(ahead: Path) -> None:
    _rewrite_in_place(ahead / "docs/p.md", EDITED)  # the same size, the same future mtime
    got = await _answers(ahead, "gadget")
    assert "error" not in got["get_doc"], got["get_doc"]
    assert "gadget explains" in got["get_doc"]["content"]
    assert "widget" not in got["get_doc"]["content"]
    assert "docs/p.md" in json.dumps(got["search_docs"])


def test_an_edit_stamped_ahead_is_refused_unsynced(
    ahead: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the query-time sync off, the edited page is refused, never served as indexed."""
    _rewrite_in_place(ahead / "docs/p.md", EDITED)
    monkeypatch.setenv("KENSO_QUERY_SYNC", "false")
    kb = KnowledgeBase.open(ahead)
    assert not kb.settings.query_sync
    with pytest.raises(KensoError, match="changed on disk since it was indexed"):
        kb.get_doc("docs/p.md")


def test_a_racy_page_is_settled_by_its_bytes(ahead: Path) -> None:
    """The stat data of a page stamped ahead cannot vouch for it (`racy`); its bytes do:
    the indexed ones are the page, other bytes under the same stat data (a save in the
    same tick as the index read it) are not."""
    path = ahead / "docs/p.md"
    row = KnowledgeBase.open(ahead).read(lambda conn: load_files(conn, ["docs/p.md"]))["docs/p.md"]
    assert disk_state(row, path.stat()) == "racy"
    assert racy_unchanged(ahead, "docs/p.md", None, row)

    _rewrite_in_place(path, EDITED)
    st = path.stat()
    # the index read the old bytes of the file as it is now: only the bytes tell them apart
    read_before = row._replace(size=st.st_size, ctime_ns=st.st_ctime_ns, inode=st.st_ino)
    assert read_before.blob_id == blob_id(PAGE.encode())
    assert disk_state(read_before, st) == "racy"
    assert not racy_unchanged(ahead, "docs/p.md", None, read_before)
    assert racy_unchanged(
        ahead, "docs/p.md", None, read_before._replace(blob_id=blob_id(EDITED.encode()))
    )
