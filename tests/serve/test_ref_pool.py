"""A server keeps the indexes of the revisions its tools were asked about ready (#29's
`revision-copies`): the next call at the same commit reuses the copy instead of building it
again, at most that many copies are kept, a copy in use is never removed under its call, and
a copy made with ignore rules that changed since is not reused."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.api.revision import at_revision
from kenso_git.api.revpool import RevisionPool
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """v1: walrus.md and seal.md; v2 edits seal.md; HEAD deletes walrus.md."""
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/walrus.md": doc("Walrus", "The walrus migration plan. " * 20),
            "docs/seal.md": doc("Seal", "The seal census counts every colony. " * 20),
            ".gitignore": ".kenso/\n",
        },
    )
    git(root, "tag", "v1")
    write(root, {"docs/seal.md": doc("Seal", "The seal census moved to spring. " * 20)})
    git(root, "commit", "-qam", "edit seal")
    git(root, "tag", "v2")
    git(root, "rm", "-q", "docs/walrus.md")
    git(root, "commit", "-qm", "drop walrus")
    KnowledgeBase.open(root).ingest()
    return root


def _copies(root: Path) -> list[Path]:
    folder = root / ".kenso" / "revisions"
    return sorted(folder.iterdir()) if folder.exists() else []


async def _search(client: Client, query: str, ref: str) -> list[str]:
    result = await client.call_tool("search_docs", {"query": query, "ref": ref})
    assert not result.is_error, result.content
    return [h["file_path"] for h in json.loads(result.content[0].text)]  # type: ignore[union-attr]


async def test_a_second_call_at_a_revision_reuses_its_copy(repo: Path) -> None:
    service = Service(repo)
    async with Client(build_server(service)) as client:
        assert await _search(client, "walrus", "v1") == ["docs/walrus.md"]
        first = _copies(repo)
        assert len(first) == 1  # kept ready for the next call
        assert await _search(client, "walrus", "v1") == ["docs/walrus.md"]
        assert _copies(repo) == first  # the same copy answered
        assert await _search(client, "spring", "v2") == ["docs/seal.md"]
        assert len(_copies(repo)) == 2  # revision-copies = 2 by default
        assert await _search(client, "walrus", "HEAD") == []
        assert len(_copies(repo)) == 2  # the least recently used (v1) let go
        assert first[0] not in _copies(repo)
    service.revisions.close()
    assert _copies(repo) == []


async def test_revision_copies_zero_builds_one_per_call(repo: Path) -> None:
    write(repo, {".kenso.toml": "revision-copies = 0\n"})
    service = Service(repo)
    async with Client(build_server(service)) as client:
        assert await _search(client, "walrus", "v1") == ["docs/walrus.md"]
        assert _copies(repo) == []
    service.revisions.close()


async def test_a_copy_made_before_an_ignore_rule_changed_is_not_reused(repo: Path) -> None:
    service = Service(repo)
    async with Client(build_server(service)) as client:
        assert await _search(client, "walrus", "v1") == ["docs/walrus.md"]
        write(repo, {".kensoignore": "docs/walrus.md\n"})
        assert await _search(client, "walrus", "v1") == []
    service.revisions.close()
    assert _copies(repo) == []


def test_concurrent_calls_at_one_revision_build_one_copy(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    pool = RevisionPool(2)
    found: list[list[str]] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            with at_revision(kb, "v1", pool=pool) as (at, _rev):
                found.append([h.file_path for h in at.search("walrus").hits])
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert found == [["docs/walrus.md"]] * 6
    assert len(_copies(repo)) == 1 and len(pool) == 1
    pool.close()
    assert _copies(repo) == []


def test_a_copy_in_use_is_removed_only_when_its_call_ends(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    pool = RevisionPool(1)
    with at_revision(kb, "v1", pool=pool) as (held, _rev):
        with at_revision(kb, "v2", pool=pool) as (other, _rev2):
            assert [h.file_path for h in other.search("spring").hits] == ["docs/seal.md"]
        # v1 was let go by the bound, but its call is still running: it still answers
        assert [h.file_path for h in held.search("walrus").hits] == ["docs/walrus.md"]
        assert len(_copies(repo)) == 2
    assert len(_copies(repo)) == 1  # v1's copy went when its call ended
    pool.close()
    assert _copies(repo) == []
